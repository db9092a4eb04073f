import { configOption, cwdOption, dbOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf tail <adw_id>`: follow a run from another terminal. */
export const tailSpec: CommandSpec = {
  names: ["tail"],
  register(program) {
    program
      .command("tail")
      .description(
        "follow a run from another terminal: its lines so far as sssf run prints them, then each new one until it ends",
      )
      .argument("<adw_id>", "session id")
      .option("--from-start", "print the whole run so far (default: its last --lines)")
      .option("--lines <n>", "how many lines of the run so far to print first", "20")
      .addOption(dbOption())
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (adwId: string, options) => {
        const { tailCommand } = await import("./tail-command.js");
        process.exitCode = await tailCommand(adwId, options);
      });
  },
};
