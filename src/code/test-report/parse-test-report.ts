import type { ReportFormat } from "../../config/report-formats.js";
import { parseGoTestJson } from "./go-test-json.js";
import { parseJestJson } from "./jest-json.js";
import { parseJunit } from "./junit.js";
import { parseLibtestJson } from "./libtest-json.js";
import { parsePytestJson } from "./pytest-json.js";
import { parseTap } from "./tap.js";
import type { TestReportResult } from "./test-case.js";
import { unreadable } from "./test-case.js";

export type { TestCase, TestReportResult } from "./test-case.js";

/** Largest report read: a bigger one is refused rather than parsed (memory, time). */
export const MAX_REPORT_CHARS = 32 * 1024 * 1024;

const parsers: Record<ReportFormat, (input: string) => TestReportResult> = {
  junit: parseJunit,
  tap: parseTap,
  "jest-json": parseJestJson,
  "pytest-json": parsePytestJson,
  "go-test-json": parseGoTestJson,
  "libtest-json": parseLibtestJson,
};

/**
 * A runner's per-test report in `format` as a list of tests, or why it could not be read (empty,
 * too big, malformed, not that format). Never throws: a report is data the suite wrote.
 * @example const report = parseTestReport("junit", readFileSync("report.xml", "utf8"));
 */
export function parseTestReport(format: ReportFormat, input: string): TestReportResult {
  if (input.trim() === "") return unreadable("the report is empty");
  if (input.length > MAX_REPORT_CHARS) {
    return unreadable(`the report is larger than ${MAX_REPORT_CHARS / 1024 / 1024} MiB: not read`);
  }
  try {
    return parsers[format](input.charCodeAt(0) === 0xfeff ? input.slice(1) : input);
  } catch (error) {
    return unreadable(`${format} report could not be read: ${(error as Error).message}`);
  }
}
