import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { runWorkflow } from "../../engine/run-workflow.js";
import { UsageError } from "../../errors/usage-error.js";
import { findWorkflow } from "../../workflows/index.js";
import { loadConfig, runtimes } from "../builtin-plugins.js";
import { interruptOnSignals } from "../interrupt-signals.js";
import { reportError } from "../report-error.js";
import { createTerminalReporter } from "../terminal-reporter.js";

export interface RunCommandOptions {
  agent?: string;
  adwId?: string;
  config?: string;
  cwd?: string;
  /** `--in-place`: work in the checkout instead of a worktree of its own. */
  inPlace?: boolean;
  /** `--base REF`: where the run's branch starts (default HEAD). */
  base?: string;
  /** `--merge`: fast-forward the base branch once the run is accepted. */
  merge?: boolean;
  /** `--yes`: approve every question of an engineer phase instead of waiting for `sssf approve`. */
  yes?: boolean;
}

/** A prompt argument that names an existing file is read from it. */
export function readPromptArgument(value: string, cwd: string): string {
  const candidate = path.resolve(cwd, value);
  if (value.length < 4096 && existsSync(candidate) && statSync(candidate).isFile())
    return readFileSync(candidate, "utf8");
  return value;
}

/**
 * `sssf run`: validates everything before starting, then runs with SIGINT/SIGTERM wired to abort,
 * which kills the agents' process groups and finalizes the session as `fail`.
 */
export async function runCommand(
  workflowName: string,
  prompt: string,
  options: RunCommandOptions,
): Promise<number> {
  const verbose = process.argv.includes("--verbose");
  try {
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    const workflow = await findWorkflow(workflowName, { repoRoot: cwd });
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    const interrupt = interruptOnSignals();
    try {
      const outcome = await runWorkflow({
        workflow,
        registry: runtimes,
        request: readPromptArgument(prompt, cwd),
        config,
        adwId: options.adwId,
        agent: options.agent,
        inPlace: options.inPlace === true,
        base: options.base,
        merge: options.merge === true,
        yes: options.yes === true,
        reporter: createTerminalReporter(process.stdout, cwd),
        signal: interrupt.signal,
      });
      return outcome.exitCode;
    } finally {
      interrupt.dispose();
    }
  } catch (error) {
    return reportError(error, verbose);
  }
}
