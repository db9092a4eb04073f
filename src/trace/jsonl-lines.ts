import { closeSync, openSync, readSync } from "node:fs";

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/**
 * The lines of the file at `filePath`, read synchronously in 1 MiB chunks (files larger than a string may
 * hold are fine), without their `\n`. A last line without a newline is yielded too; empty lines are not.
 * Contract: throws the file system's error when the file cannot be opened or read. Splitting on the newline
 * byte is safe for UTF-8, where that byte never occurs inside a multi-byte character.
 */
export function* readLinesSync(filePath: string): Generator<string> {
  const fd = openSync(filePath, "r");
  try {
    // Pieces of a line that spans chunks, joined once its end is found (linear even for huge lines).
    let partial: Buffer[] = [];
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      let start = 0;
      for (
        let end = chunk.indexOf(NEWLINE, start);
        end !== -1 && end < read;
        end = chunk.indexOf(NEWLINE, start)
      ) {
        const piece = chunk.subarray(start, end);
        const line = partial.length === 0 ? piece : Buffer.concat([...partial, piece]);
        partial = [];
        if (line.length > 0) yield line.toString("utf8");
        start = end + 1;
      }
      if (start < read) partial.push(chunk.subarray(start, read));
    }
    if (partial.length > 0) yield Buffer.concat(partial).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
