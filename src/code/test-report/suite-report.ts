/**
 * A quality suite's per-test report around one run of the suite: where the runner is told to write
 * it (`{report_file}`), reading and parsing it afterwards, and the whole list saved beside the log.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { QualitySuiteConfig } from "../../config/config-types.js";
import { REPORT_FILE_PLACEHOLDER, type ReportFormat } from "../../config/report-formats.js";
import { redactJsonValue } from "../../util/secrets/redact-json.js";
import { goTestOutput } from "./go-test-json.js";
import { MAX_REPORT_CHARS, parseTestReport } from "./parse-test-report.js";
import type { TestCase } from "./test-case.js";

const EXTENSIONS: Record<ReportFormat, string> = {
  junit: "xml",
  tap: "tap",
  "jest-json": "json",
  "pytest-json": "json",
  "go-test-json": "jsonl",
  "libtest-json": "jsonl",
};

/** A suite's run with its report wired in. */
export interface PreparedReport {
  format: ReportFormat;
  /** The command and env with `{report_file}` replaced. */
  command: string[];
  env: Record<string, string>;
  /** The file read after the run; null: the report is the suite's stdout. */
  file: string | null;
  /** Removes the temporary folder a report path was made in (none when a log path gave the place). */
  cleanup(): void;
}

/**
 * Wires `suite.report` into one run: a fresh report path (`<log stem>.report.<ext>` beside the log,
 * else in a temporary folder) replaces `{report_file}` in the arguments and env values; the file to
 * read (the configured `file`, or that path when the command names it, else stdout) is deleted first
 * so a stale report is never read. Null when the suite has no report configured.
 */
export function prepareReport(
  suite: QualitySuiteConfig,
  cwd: string,
  logPath: string | undefined,
): PreparedReport | null {
  const report = suite.report;
  if (report === undefined) return null;
  const temporary = logPath === undefined ? temporaryDir() : null;
  const stem =
    logPath === undefined
      ? path.join(temporary ?? os.tmpdir(), `sssf-${process.pid}-${suite.name}`)
      : logPath.replace(/\.log$/, "");
  const reportPath = `${stem}.report.${EXTENSIONS[report.format]}`;
  const fill = (value: string) => value.split(REPORT_FILE_PLACEHOLDER).join(reportPath);
  const named =
    suite.command.some((arg) => arg.includes(REPORT_FILE_PLACEHOLDER)) ||
    Object.values(suite.env).some((value) => value.includes(REPORT_FILE_PLACEHOLDER));
  const file = report.file !== undefined ? path.resolve(cwd, fill(report.file)) : named ? reportPath : null;
  if (file !== null) {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      rmSync(file, { force: true });
    } catch {
      // Not writable or not removable: the run goes on; reading afterwards says what is missing.
    }
  }
  return {
    format: report.format,
    command: suite.command.map(fill),
    env: Object.fromEntries(Object.entries(suite.env).map(([key, value]) => [key, fill(value)])),
    file,
    cleanup: () => {
      if (temporary !== null) rmSync(temporary, { recursive: true, force: true });
    },
  };
}

/** A private folder for a report when no log path gives one its place; the system's tmp dir as a last resort. */
function temporaryDir(): string | null {
  try {
    return mkdtempSync(path.join(os.tmpdir(), "sssf-report-"));
  } catch {
    return null;
  }
}

/** What a run's report gave: the tests, or the line saying why there are none. */
export type CollectedReport = { tests: TestCase[]; note: null } | { tests: null; note: string };

function readReport(prepared: PreparedReport, stdout: string | null): string | { why: string } {
  if (prepared.file === null)
    return stdout ?? { why: `the suite's stdout outgrew ${MAX_REPORT_CHARS} bytes` };
  let size: number;
  try {
    size = statSync(prepared.file).size;
  } catch {
    return { why: `${prepared.file} was not written` };
  }
  if (size > MAX_REPORT_CHARS) return { why: `${prepared.file} is larger than ${MAX_REPORT_CHARS} bytes` };
  return readFileSync(prepared.file, "utf8");
}

/** A file the report names as an absolute path (or file: URL) inside `cwd`, made relative: a run's worktree and its baseline's differ. */
function relativeFile(file: string | null, cwd: string): string | null {
  if (file === null) return null;
  const plain = file.startsWith("file://") ? file.slice("file://".length) : file;
  if (!path.isAbsolute(plain)) return file;
  const relative = path.relative(cwd, plain);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative.split(path.sep).join("/");
}

/**
 * Reads and parses the report after the run. Never throws: a missing, oversized or malformed report
 * is `{ tests: null, note }` with the `[sssf] no per-test report: …` line for the output tail.
 */
export function collectReport(prepared: PreparedReport, cwd: string, stdout: string | null): CollectedReport {
  try {
    const text = readReport(prepared, stdout);
    if (typeof text !== "string") return { tests: null, note: `[sssf] no per-test report: ${text.why}` };
    const parsed = parseTestReport(prepared.format, text);
    if (!parsed.ok) return { tests: null, note: `[sssf] no per-test report: ${parsed.reason}` };
    const tests = parsed.tests.map((test) => ({ ...test, file: relativeFile(test.file, cwd) }));
    return { tests, note: null };
  } catch (error) {
    return { tests: null, note: `[sssf] no per-test report: ${(error as Error).message}` };
  } finally {
    prepared.cleanup();
  }
}

/** Writes the whole per-test list to `<log stem>.tests.json`; the path, or null when it could not be written. */
export function saveTests(logPath: string | undefined, tests: readonly TestCase[]): string | null {
  if (logPath === undefined) return null;
  const file = `${logPath.replace(/\.log$/, "")}.tests.json`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(redactJsonValue({ tests }), null, 1)}\n`);
    return file;
  } catch {
    return null;
  }
}

/**
 * The suite's output as a person reads it: `go test -json` prints events, so their Output fields
 * stand for each JSON line (other lines, stderr, stay as they are). Other formats: unchanged.
 */
export function readableOutput(format: ReportFormat | undefined, fromStdout: boolean, text: string): string {
  if (format !== "go-test-json" || !fromStdout) return text;
  return text
    .split("\n")
    .map((line) => {
      if (!line.trimStart().startsWith("{")) return `${line}\n`;
      const rendered = goTestOutput(line);
      return rendered === "" && !line.includes('"Action"') ? `${line}\n` : rendered;
    })
    .join("");
}
