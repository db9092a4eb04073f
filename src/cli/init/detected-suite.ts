/** One suite `sssf init` writes under `quality:`. */
export interface DetectedSuite {
  /** test, lint, typecheck or build. */
  name: string;
  command: string[];
  /** The file it came from (`package.json`, `Makefile`, …). */
  source: string;
}
