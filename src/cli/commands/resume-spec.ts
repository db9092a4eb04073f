import { configOption, cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf resume <adw_id>`. */
export const resumeSpec: CommandSpec = {
  names: ["resume"],
  register(program) {
    program
      .command("resume")
      .description("continue a run that crashed, was killed or failed, at its first unfinished phase")
      .argument("<adw_id>", "the session to continue (sssf sessions lists them)")
      .option("--yes", "approve every question the workflow asks the engineer instead of waiting")
      .option(
        "--json",
        "print one JSON summary on stdout at the end (errors too); progress goes to stderr (docs/json-output.md)",
      )
      .addOption(configOption())
      .addOption(cwdOption())
      .addHelpText(
        "after",
        "\nPhases the run completed are answered from its trace (no agent called, no suite run, no commit\nredone) until the first phase that did not complete or whose prompt or inputs changed; from there\nthe workflow runs live. See docs/resume.md.",
      )
      .action(async (adwId: string, options) => {
        const { resumeCommand } = await import("./resume-command.js");
        process.exitCode = await resumeCommand(adwId, options);
      });
  },
};
