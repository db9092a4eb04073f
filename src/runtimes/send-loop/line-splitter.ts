/**
 * Splits a stream of decoded text chunks into lines in linear time: a chunk without a newline is only
 * queued, so a 5 MB single line costs one join, and many small lines never rescan old text.
 */

/** Incremental line splitting over decoded chunks. */
export interface LineSplitter {
  /** Feeds one chunk; calls `onLines` with the complete non-blank lines it closes. */
  push(chunk: string): void;
  /** Flushes the last line when the stream ended without a newline. */
  end(): void;
}

/** Drops the `\r` of CRLF endings and blank lines, which carry nothing. */
function keepLines(lines: string[]): string[] {
  const kept: string[] = [];
  for (const line of lines) {
    const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (trimmed.trim() !== "") kept.push(trimmed);
  }
  return kept;
}

/** Creates a splitter that reports lines in batches (one batch per chunk). Never throws itself. */
export function createLineSplitter(onLines: (lines: string[]) => void): LineSplitter {
  let pending: string[] = [];
  return {
    push(chunk) {
      const lastNewline = chunk.lastIndexOf("\n");
      if (lastNewline === -1) {
        if (chunk !== "") pending.push(chunk);
        return;
      }
      pending.push(chunk.slice(0, lastNewline));
      const head = pending.join("");
      const rest = chunk.slice(lastNewline + 1);
      pending = rest === "" ? [] : [rest];
      const lines = keepLines(head.split("\n"));
      if (lines.length > 0) onLines(lines);
    },
    end() {
      if (pending.length === 0) return;
      const lines = keepLines([pending.join("")]);
      pending = [];
      if (lines.length > 0) onLines(lines);
    },
  };
}
