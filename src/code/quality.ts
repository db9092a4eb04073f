import type { QualitySuiteConfig } from "../config/config-types.js";
import { redactSecrets } from "../trace/redact.js";
import { runCommand } from "./run-command.js";

/** How a quality suite ended: what a `testsPass` gate and a suite code phase read. */
export interface SuiteResult {
  suite: string;
  command: string[];
  passed: boolean;
  exitCode: number | null;
  durationMs: number;
  outputTail: string;
}

/** Lines of output a suite result keeps. */
const TAIL_LINES = 60;
/** Bytes captured before trimming to lines: enough for 60 long lines. */
const TAIL_BYTES = 32 * 1024;

/**
 * Runs a configured quality suite (test, lint, typecheck, build) in `cwd` and reports it. Never
 * rejects: a suite that cannot start, times out or is aborted is a failed result whose output tail
 * ends with a line saying why. `passed` means exit code 0 and nothing else.
 * @example const result = await runQualitySuite(config.quality.test!, config.repoRoot);
 */
export async function runQualitySuite(
  suite: QualitySuiteConfig,
  cwd: string,
  signal?: AbortSignal,
): Promise<SuiteResult> {
  const run = await runCommand({
    command: suite.command,
    cwd,
    env: suite.env,
    timeoutMs: suite.timeoutMs,
    tailBytes: TAIL_BYTES,
    signal,
  });
  // A tail cut in the middle of a word may start with the end of a secret no pattern recognises: drop it.
  const output = run.outputCut ? run.outputTail.replace(/^\S+/, "") : run.outputTail;
  // Redacted whole, before it is cut to lines, so a value spanning lines is still recognised.
  const lines = redactSecrets(output).replace(/\s+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") lines.pop();
  if (run.spawnError !== null)
    lines.push(redactSecrets(`[sssf] could not start ${suite.command.join(" ")}: ${run.spawnError}`));
  else if (run.timedOut) lines.push(`[sssf] timed out after ${suite.timeoutMs} ms; process group killed`);
  else if (run.aborted) lines.push("[sssf] aborted; process group killed");
  return {
    suite: suite.name,
    command: [...suite.command],
    passed: run.exitCode === 0 && !run.timedOut && !run.aborted && run.spawnError === null,
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    outputTail: lines.slice(-TAIL_LINES).join("\n"),
  };
}
