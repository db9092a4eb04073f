import { cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf init`. */
export const initSpec: CommandSpec = {
  names: ["init"],
  register(program) {
    program
      .command("init")
      .description(
        "write the roster, prompts, detected quality suites and .gitignore lines (never overwrites)",
      )
      .addOption(cwdOption())
      .option(
        "--coding-agent <id>",
        "runtime every agent uses: pi, claude_code, codex, gemini or opencode (default pi)",
      )
      .option("--model <id>", "model every agent uses (default: the coding agent's own choice)")
      .option("--sdd", "also write the sdd workflow's eight agents and their prompts (docs/sdd.md)")
      .action(async (options) => {
        const { initCommand } = await import("../init/init-command.js");
        process.exitCode = await initCommand(options);
      });
  },
};
