import { configOption, cwdOption, dbOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf ps`. */
export const psSpec: CommandSpec = {
  names: ["ps"],
  register(program) {
    program
      .command("ps")
      .description(
        "list the live runs on this host: workflow, current phase, agents with their pids, elapsed time",
      )
      .option("--json", "print JSON instead of a table")
      .addOption(dbOption())
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { psCommand } = await import("./ps-command.js");
        process.exitCode = await psCommand(options);
      });
  },
};
