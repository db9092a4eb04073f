import type { CarriedChanges } from "./worktree-dirty.js";

/** At most this many paths are named on one terminal line; the trace event keeps them all. */
export const SHOWN_PATHS = 10;

/** The room the named paths may take on a line (the reporter cuts a line at 300 characters). */
const PATHS_BUDGET = 180;

/**
 * A path as it is named in a list: as is, or JSON-quoted when it holds a space, a comma, a quote, a
 * backslash or a control character (a newline in a file name shows as `\n`, never as a line break).
 */
export function shownPath(file: string): string {
  return /[\s,"'\\\u0000-\u001f\u007f-\u009f]/.test(file) ? JSON.stringify(file) : file;
}

/** `a, b, c and 7 more`: the first paths (at most `SHOWN_PATHS`, within the line's room), then how many are left. */
export function listPaths(files: readonly string[]): string {
  const shown: string[] = [];
  let length = 0;
  for (const file of files) {
    const text = shownPath(file);
    if (shown.length === SHOWN_PATHS || (shown.length > 0 && length + text.length > PATHS_BUDGET)) break;
    shown.push(text);
    length += text.length + 2;
  }
  const rest = files.length - shown.length;
  return rest > 0 ? `${shown.join(", ")} and ${rest} more` : shown.join(", ");
}

const files = (n: number) => `${n} uncommitted file${n === 1 ? "" : "s"}`;

/** `! 3 uncommitted files are not in this run's worktree: … (--carry-dirty brings them in)`. */
export function describeLeftOut(paths: readonly string[]): string {
  const verb = paths.length === 1 ? "is" : "are";
  return `! ${files(paths.length)} ${verb} not in this run's worktree: ${listPaths(paths)} (--carry-dirty brings them in)`;
}

/** `carried 3 uncommitted files into the worktree as 1a2b3c4d5e6f (sssf's own commit): …`. */
export function describeCarried(carried: CarriedChanges): string {
  const skipped =
    carried.skipped.length > 0
      ? `; left out ${carried.skipped.length} nested repositor${carried.skipped.length === 1 ? "y" : "ies"}: ${listPaths(carried.skipped)}`
      : "";
  return `carried ${files(carried.files.length)} into the worktree as ${carried.commit.slice(0, 12)} (sssf's own commit, not the run's): ${listPaths(carried.files)}${skipped}`;
}
