import picomatch from "picomatch";

// Line terminators, which a compiled glob's `.` does not match: a name holding one would match no glob.
const LINE_TERMINATORS = /[\n\r\u2028\u2029]/g;

/**
 * A matcher of repo-relative POSIX paths against `globs` (dot files included; an empty list matches
 * nothing). A path whose names hold a newline or another line terminator is matched like any other:
 * the character stands for itself under `*`, `?` and `**` (`src/**` covers `src/a⏎b.txt`, a protected
 * `.env*` covers `.env⏎x`), where picomatch alone would match it with nothing.
 */
export function globMatcher(globs: readonly string[]): (file: string) => boolean {
  if (globs.length === 0) return () => false;
  const match = picomatch([...globs], { dot: true });
  return (file) => match(file.replace(LINE_TERMINATORS, "\u0001"));
}
