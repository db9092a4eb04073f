import path from "node:path";
import type { Command } from "commander";
import { Argument } from "commander";
import { UsageError } from "../../errors/usage-error.js";
import { listRepoWorkflowFiles } from "../../workflows/discover-files.js";
import { builtinWorkflows } from "../../workflows/index.js";
import { cwdOption } from "../cli-options.js";
import { COMPLETION_SHELLS, type CompletionShell, completionScript } from "../completion.js";
import { reportError } from "../report-error.js";

/** The names `sssf run` takes in `cwd`: the built-ins and the repo's `adws/adw_<name>.*`, sorted, once each. */
export function workflowNames(cwd: string): string[] {
  const names = new Set([...builtinWorkflows.keys(), ...listRepoWorkflowFiles(cwd).map((f) => f.name)]);
  return [...names].sort();
}

/**
 * `sssf completion <shell>` prints the shell's script for `program`; `--workflows` prints the workflow
 * names the scripts ask for while completing `sssf run <TAB>` (files are listed, none loaded).
 */
export async function completionCommand(
  program: Command,
  shell: string | undefined,
  options: { workflows?: boolean; cwd?: string },
): Promise<number> {
  try {
    if (options.workflows === true) {
      const names = workflowNames(path.resolve(options.cwd ?? process.cwd()));
      process.stdout.write(`${names.join("\n")}\n`);
      return 0;
    }
    if (shell === undefined || !(COMPLETION_SHELLS as readonly string[]).includes(shell))
      throw new UsageError(
        `completion: name a shell (${COMPLETION_SHELLS.join(", ")}), e.g. sssf completion bash`,
        "shell",
      );
    process.stdout.write(completionScript(program, shell as CompletionShell));
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"));
  }
}

/** `sssf completion bash|zsh|fish`: a completion script generated from the program's own commands. */
export function registerCompletion(program: Command): void {
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
      process.exitCode = await completionCommand(program, shell, options);
    });
}
