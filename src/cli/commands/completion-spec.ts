import { Argument } from "commander";
import { cwdOption } from "../cli-options.js";
import type { CommandSpec } from "../command-spec.js";
import { COMPLETION_SHELLS } from "../completion.js";

/** `sssf completion bash|zsh|fish`: a completion script generated from the program's own commands. */
export const completionSpec: CommandSpec = {
  names: ["completion"],
  listsOthers: true,
  register(program) {
    program
      .command("completion")
      .description("print a shell completion script (commands, flags, workflow names)")
      .addArgument(new Argument("[shell]", "the shell").choices(COMPLETION_SHELLS))
      .option("--workflows", "print the workflow names one per line (what the scripts complete)")
      .addOption(cwdOption())
      .addHelpText(
        "after",
        "\nInstall:\n  bash  sssf completion bash > ~/.local/share/bash-completion/completions/sssf\n  zsh   sssf completion zsh > ~/.zfunc/_sssf   (with ~/.zfunc on fpath; or: source <(sssf completion zsh))\n  fish  sssf completion fish > ~/.config/fish/completions/sssf.fish",
      )
      .action(async (shell: string | undefined, options) => {
        const { completionCommand } = await import("./completion-command.js");
        process.exitCode = await completionCommand(program, shell, options);
      });
  },
};
