import { isSssfError } from "../errors/sssf-error.js";
import { terminalSafe } from "../util/terminal-text.js";

// Messages quote config files, paths, flags and agents' output: shown, never acted on by the terminal.
const print = (text: string) => process.stderr.write(terminalSafe(text, { multiline: true }));

/**
 * Prints an error the way users should see it: one actionable line (a config error lists each
 * problem), a stack only with --verbose; controls in the text as visible escapes (`terminalSafe`).
 * Returns the exit status.
 */
export function reportError(error: unknown, verbose: boolean): number {
  if (isSssfError(error)) {
    print(`sssf: ${error.message}\n`);
    if (verbose && error.stack) print(`${error.stack}\n`);
    return error.exitCode;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  print(`sssf: unexpected error: ${err.message}${verbose ? "" : " (run with --verbose for details)"}\n`);
  if (verbose && err.stack) print(`${err.stack}\n`);
  return 1;
}
