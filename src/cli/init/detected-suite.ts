import type { SuiteReportConfig } from "../../config/report-formats.js";

/** One suite `sssf init` writes under `quality:`. */
export interface DetectedSuite {
  /** test, lint, typecheck or build. */
  name: string;
  command: string[];
  /** The file it came from (`package.json`, `Makefile`, …). */
  source: string;
  /** Its per-test report, when the runner is known to write one (`report:` in the config). */
  report?: SuiteReportConfig;
}
