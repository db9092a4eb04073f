import type { QualitySuiteConfig } from "../config/config-types.js";
import { redactSecrets } from "../util/secrets/redact.js";
import { runCommand } from "./run-command.js";
import { openSuiteLog } from "./suite-log.js";

/** How a quality suite ended: what a `testsPass` gate and a suite code phase read. */
export interface SuiteResult {
  suite: string;
  command: string[];
  passed: boolean;
  exitCode: number | null;
  durationMs: number;
  outputTail: string;
  /** The file holding the whole output (redacted, bounded), or null when none was asked for or written. */
  logPath: string | null;
}

/** Options of {@link runQualitySuite}. */
export interface QualitySuiteOptions {
  signal?: AbortSignal | undefined;
  /** Stream the whole output (redacted, at most `logCapBytes`) to this file while the suite runs. */
  logPath?: string | undefined;
  /** Bound of the log file (default `SUITE_LOG_CAP_BYTES`, 64 MiB). */
  logCapBytes?: number | undefined;
}

/** Lines of output a suite result keeps. */
const TAIL_LINES = 60;
/** Bytes captured before trimming to lines: enough for 60 long lines. */
const TAIL_BYTES = 32 * 1024;

/**
 * Runs a configured quality suite (test, lint, typecheck, build) in `cwd` and reports it. Never
 * rejects: a suite that cannot start, times out or is aborted is a failed result whose output tail
 * ends with a line saying why. `passed` means exit code 0 and nothing else. With `logPath` the whole
 * output is streamed there as it comes (`openSuiteLog`: redacted, bounded, the reason line at its end).
 * @example const result = await runQualitySuite(config.quality.test!, config.repoRoot, { logPath });
 */
export async function runQualitySuite(
  suite: QualitySuiteConfig,
  cwd: string,
  options: QualitySuiteOptions | AbortSignal = {},
): Promise<SuiteResult> {
  const { signal, logPath, logCapBytes } = options instanceof AbortSignal ? { signal: options } : options;
  const log = logPath === undefined ? null : openSuiteLog(logPath, { capBytes: logCapBytes });
  const run = await runCommand({
    command: suite.command,
    cwd,
    env: suite.env,
    timeoutMs: suite.timeoutMs,
    tailBytes: TAIL_BYTES,
    signal,
    ...(log ? { onOutput: (chunk: Buffer) => log.push(chunk) } : {}),
  });
  // A tail cut in the middle of a word may start with the end of a secret no pattern recognises: drop it.
  const output = run.outputCut ? run.outputTail.replace(/^\S+/, "") : run.outputTail;
  // Redacted whole, before it is cut to lines, so a value spanning lines is still recognised.
  const lines = redactSecrets(output).replace(/\s+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") lines.pop();
  const reason =
    run.spawnError !== null
      ? redactSecrets(`[sssf] could not start ${suite.command.join(" ")}: ${run.spawnError}`)
      : run.timedOut
        ? `[sssf] timed out after ${suite.timeoutMs} ms; process group killed`
        : run.aborted
          ? "[sssf] aborted; process group killed"
          : null;
  if (reason !== null) lines.push(reason);
  const outputTail = lines.slice(-TAIL_LINES).join("\n");
  const written = log ? await log.close(outputTail, reason === null ? [] : [reason]) : null;
  return {
    suite: suite.name,
    command: [...suite.command],
    passed: run.exitCode === 0 && !run.timedOut && !run.aborted && run.spawnError === null,
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    outputTail,
    logPath: written,
  };
}
