import { configOption, cwdOption, dbOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf db rebuild`. */
export const dbSpec: CommandSpec = {
  register(program) {
    program
      .command("db")
      .description("trace database maintenance")
      .command("rebuild")
      .description("recreate the trace database from the session files (the old one is kept as a backup)")
      .addOption(dbOption())
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { dbRebuildCommand } = await import("./db-command.js");
        process.exitCode = await dbRebuildCommand(options);
      });
  },
};
