import type { QualitySuiteConfig } from "../config/config-types.js";
import { redactSecrets } from "../util/secrets/redact.js";
import { runCommand } from "./run-command.js";
import { openSuiteLog } from "./suite-log.js";
import { MAX_REPORT_CHARS } from "./test-report/parse-test-report.js";
import { collectReport, prepareReport, readableOutput, saveTests } from "./test-report/suite-report.js";
import type { TestCase } from "./test-report/test-case.js";

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
  /**
   * Every test's outcome from the suite's `report:` (null when none is configured, or when it was
   * missing or unreadable: then the output tail ends with a `[sssf] no per-test report: …` line).
   */
  tests: TestCase[] | null;
  /** `<log stem>.tests.json`, the whole list beside the log; null without tests or a log. */
  testsPath: string | null;
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
  const report = prepareReport(suite, cwd, logPath);
  // A report printed on stdout is kept whole (bounded) to be parsed after the run.
  const stdout = report !== null && report.file === null ? new BoundedText(MAX_REPORT_CHARS) : null;
  const run = await runCommand({
    command: report?.command ?? suite.command,
    cwd,
    env: report?.env ?? suite.env,
    timeoutMs: suite.timeoutMs,
    tailBytes: TAIL_BYTES,
    signal,
    ...(log ? { onOutput: (chunk: Buffer) => log.push(chunk) } : {}),
    ...(stdout ? { onStdout: (chunk: Buffer) => stdout.push(chunk) } : {}),
  });
  const collected = report === null ? null : collectReport(report, cwd, stdout?.text() ?? null);
  // A tail cut in the middle of a word may start with the end of a secret no pattern recognises: drop it.
  const raw = run.outputCut ? run.outputTail.replace(/^\S+/, "") : run.outputTail;
  const output = readableOutput(report?.format, stdout !== null, raw);
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
  const note = collected?.note == null ? null : redactSecrets(collected.note);
  if (note !== null) lines.push(note);
  if (reason !== null) lines.push(reason);
  const outputTail = lines.slice(-TAIL_LINES).join("\n");
  const trailer = [note, reason].filter((line): line is string => line !== null);
  const written = log ? await log.close(outputTail, trailer) : null;
  const tests = collected?.tests ?? null;
  return {
    suite: suite.name,
    command: [...suite.command],
    passed: run.exitCode === 0 && !run.timedOut && !run.aborted && run.spawnError === null,
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    outputTail,
    logPath: written,
    tests,
    testsPath: tests === null ? null : saveTests(logPath, tests),
  };
}

/** Bytes kept up to a bound, as UTF-8 text; past it, nothing (a cut report would not parse). */
class BoundedText {
  private chunks: Buffer[] = [];
  private size = 0;
  private over = false;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    if (this.over) return;
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.over = true;
      this.chunks = [];
    } else this.chunks.push(chunk);
  }
  /** The text, or null when it outgrew the bound. */
  text(): string | null {
    return this.over ? null : Buffer.concat(this.chunks).toString("utf8");
  }
}
