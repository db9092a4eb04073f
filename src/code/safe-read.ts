/**
 * Reading a file of a tree an agent may have tampered with: never through a link, never from a FIFO,
 * socket or device, never more bytes than the size it was listed with. `lstat` told the caller what
 * was there; the file is then opened with `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in meanwhile
 * neither blocks the open nor is followed), its descriptor `fstat`ed and checked to be the same
 * regular file (device, inode, size), and at most that size is read.
 */

import fs from "node:fs";

/** What a listing said a file was: the read refuses anything else. */
export interface ExpectedFile {
  dev: number;
  ino: number;
  size: number;
}

const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * The bytes of the regular file at `absolute` when it is still `expected` (from `lstat`), else null:
 * a link, a FIFO, a socket, a device, a folder, another file swapped in, or a size that moved. Reads
 * at most `expected.size` bytes. Never throws.
 */
export function readRegularFile(absolute: string, expected: ExpectedFile): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(absolute, FLAGS);
  } catch {
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.dev !== expected.dev || stat.ino !== expected.ino) return null;
    if (stat.size !== expected.size) return null;
    const content = Buffer.allocUnsafe(expected.size);
    let read = 0;
    while (read < expected.size) {
      const n = fs.readSync(fd, content, read, expected.size - read, read);
      if (n === 0) return null; // shrank while read
      read += n;
    }
    return content;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** `lstat` of `absolute` and, when it is a regular file, its bytes read as `readRegularFile` does. Never throws. */
export function lstatAndRead(absolute: string): { stat: fs.Stats; content: Buffer | null } | null {
  const stat = fs.lstatSync(absolute, { throwIfNoEntry: false });
  if (stat === undefined) return null;
  return { stat, content: stat.isFile() ? readRegularFile(absolute, stat) : null };
}
