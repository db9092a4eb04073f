import { configOption, cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";

/** `sssf clean`. */
export const cleanSpec: CommandSpec = {
  names: ["clean"],
  register(program) {
    program
      .command("clean")
      .description(
        "remove the worktrees of finished runs, and their branches that hold no commit (branches with commits are kept)",
      )
      .option("--dry-run", "say what would be removed, remove nothing")
      .option("--force", "also remove worktrees with uncommitted changes (those changes are lost)")
      .addOption(configOption())
      .addOption(cwdOption())
      .action(async (options) => {
        const { cleanCommand } = await import("./clean-command.js");
        process.exitCode = await cleanCommand(options);
      });
  },
};
