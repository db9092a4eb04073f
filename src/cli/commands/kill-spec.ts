import { configOption, cwdOption, dbOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf kill <adw_id>`. */
export const killSpec: CommandSpec = {
  names: ["kill"],
  register(program) {
    program
      .command("kill")
      .description(
        "stop a live run from another terminal: SIGTERM to its sssf, which stops its agents and finalizes; a run whose sssf is gone is closed as interrupted",
      )
      .argument("<adw_id>", "session id")
      .option("--timeout <seconds>", "how long to wait for the run to finalize", "60")
      .addOption(dbOption())
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (adwId: string, options) => {
        const { killCommand } = await import("./kill-command.js");
        process.exitCode = await killCommand(adwId, options);
      });
  },
};
