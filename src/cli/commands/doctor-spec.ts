import { configOption, cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf doctor`. */
export const doctorSpec: CommandSpec = {
  names: ["doctor"],
  register(program) {
    program
      .command("doctor")
      .description(
        "check every agent's runtime, model, API-key variables and prompts, and the quality suites",
      )
      .option("--run-suites", "run each configured quality suite once in the checkout (passed or failed)")
      .option("--json", "print every check as one JSON object on stdout (docs/json-output.md)")
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { doctorCommand } = await import("./doctor-command.js");
        process.exitCode = await doctorCommand(options);
      });
  },
};
