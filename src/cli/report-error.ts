import { isSssfError } from "../errors/sssf-error.js";

/**
 * Prints an error the way users should see it: one actionable line (a config error lists each
 * problem), a stack only with --verbose. Returns the exit status.
 */
export function reportError(error: unknown, verbose: boolean): number {
  if (isSssfError(error)) {
    process.stderr.write(`sssf: ${error.message}\n`);
    if (verbose && error.stack) process.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  process.stderr.write(
    `sssf: unexpected error: ${err.message}${verbose ? "" : " (run with --verbose for details)"}\n`,
  );
  if (verbose && err.stack) process.stderr.write(`${err.stack}\n`);
  return 1;
}
