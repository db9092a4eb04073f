/** `sssf run <workflow> <prompt> --dry-run [--json]`: the phases a run would take, with nothing run (docs/dry-run.md). */
import { existsSync } from "node:fs";
import path from "node:path";
import { dryRunLines } from "../../dry-run/dry-run-report.js";
import { dryRun } from "../../dry-run/dry-run-walk.js";
import { UsageError } from "../../errors/usage-error.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import { jsonTerminalSafe, terminalSafe } from "../../util/terminal-text.js";
import { findWorkflow } from "../../workflows/index.js";
import { loadConfig } from "../builtin-plugins.js";
import { bestOfFlag, type RunCommandOptions, readPromptArgument } from "../cli-options.js";
import { reportError } from "../report-error.js";

/** Flags of `sssf run` that start, join or land something a dry run never does. */
const REFUSED: readonly (readonly [keyof RunCommandOptions, string])[] = [
  ["adwId", "--adw-id"],
  ["merge", "--merge"],
  ["fakeScript", "--fake-script"],
  ["detach", "--detach"],
];

/** Prints the dry run of `workflowName` (lines, or one JSON object with `--json`); returns the exit status. */
export async function dryRunCommand(
  workflowName: string,
  prompt: string,
  options: RunCommandOptions,
): Promise<number> {
  const json = options.json === true;
  try {
    for (const [key, flag] of REFUSED)
      if (options[key] !== undefined && options[key] !== false)
        throw new UsageError(`${flag}: not with --dry-run, which starts no run`, flag);
    if (options.engine !== undefined && options.engine !== "local")
      throw new UsageError("--engine: --dry-run walks the workflow here; it needs no engine", "--engine");
    const cwd = path.resolve(options.cwd ?? process.cwd());
    if (!existsSync(cwd)) throw new UsageError(`--cwd: ${cwd} does not exist`, "--cwd");
    const workflow = await findWorkflow(workflowName, { repoRoot: cwd });
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    const report = await dryRun({
      workflow,
      request: readPromptArgument(prompt, cwd),
      config,
      repoRoot: cwd,
      agent: options.agent,
      bestOf: options.bestOf === undefined ? undefined : bestOfFlag(options.bestOf),
    });
    const shown = { ...report, request: redactSecrets(report.request) };
    if (json) process.stdout.write(`${jsonTerminalSafe(JSON.stringify(shown))}\n`);
    else
      process.stdout.write(
        dryRunLines(shown)
          .map((line) => `${terminalSafe(redactSecrets(line))}\n`)
          .join(""),
      );
    return 0;
  } catch (error) {
    return reportError(error, process.argv.includes("--verbose"), { json });
  }
}
