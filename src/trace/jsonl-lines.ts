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
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      const data =
        carry.length === 0 ? chunk.subarray(0, read) : Buffer.concat([carry, chunk.subarray(0, read)]);
      let start = 0;
      for (let end = data.indexOf(NEWLINE, start); end !== -1; end = data.indexOf(NEWLINE, start)) {
        if (end > start) yield data.toString("utf8", start, end);
        start = end + 1;
      }
      // Copy the partial line: `chunk` is reused by the next read.
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length > 0) yield carry.toString("utf8");
  } finally {
    closeSync(fd);
  }
}
