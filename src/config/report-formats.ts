/** The per-test report formats a quality suite's `report:` may name (docs/configuration.md). */
export const REPORT_FORMATS = [
  "junit",
  "tap",
  "jest-json",
  "pytest-json",
  "go-test-json",
  "libtest-json",
] as const;

export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Replaced in a suite's arguments and env values by a fresh report path per run of the suite. */
export const REPORT_FILE_PLACEHOLDER = "{report_file}";

/** `quality.<suite>.report` resolved: the format, and the file it is written to (absent: stdout). */
export interface SuiteReportConfig {
  format: ReportFormat;
  /** Relative to the suite's cwd, or containing `{report_file}`. Absent: `{report_file}` if the command has it, else stdout. */
  file?: string | undefined;
}
