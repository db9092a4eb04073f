import { createHash } from "node:crypto";
import fs from "node:fs";
import { type ExpectedFile, readRegularFile } from "./safe-read.js";

/** Fingerprint of a path that does not exist (deleted, or never there). */
export const ABSENT = "<deleted>";
/** Fingerprint of a directory listed where a file could be (a nested repository, a submodule). */
export const DIRECTORY = "<directory>";
/** Fingerprint of a FIFO, socket or device node: never read. */
export const SPECIAL = "<special>";

export type ObjectFormat = "sha1" | "sha256";

/** Files at least this big are streamed instead of read whole. */
const STREAM_FROM_BYTES = 8 * 1024 * 1024;

/**
 * Git's object id for the worktree content at `absolute` (a symlink hashes its target text, as git
 * stores it), so a worktree file compares directly with a blob in HEAD. Missing paths give ABSENT,
 * directories DIRECTORY, unreadable ones `<unreadable:CODE>`. Never rejects.
 */
export async function gitBlobFingerprint(absolute: string, format: ObjectFormat): Promise<string> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.lstat(absolute);
  } catch (error) {
    return missingOrUnreadable(error);
  }
  if (stat.isDirectory()) return DIRECTORY;
  // A FIFO, socket or device is never opened: reading one blocks or never ends.
  if (!stat.isFile() && !stat.isSymbolicLink()) return SPECIAL;
  try {
    if (stat.isSymbolicLink()) return blobId(format, Buffer.from(await fs.promises.readlink(absolute)));
    const hash = createHash(format).update(`blob ${stat.size}\0`);
    return await hashContent(absolute, stat, hash);
  } catch (error) {
    return missingOrUnreadable(error);
  }
}

/** Git's object id of `content` as a blob. */
export function blobId(format: ObjectFormat, content: Buffer): string {
  return createHash(format).update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** sha1 of a regular file's content as `lstat` saw it (`stat`), streamed for big files. Rejects when it cannot be read. */
export async function contentSha1(absolute: string, stat: ExpectedFile): Promise<string> {
  return hashContent(absolute, stat, createHash("sha1"));
}

/**
 * Hashes the regular file `lstat` described as `stat`: opened without following a link or blocking on
 * a FIFO, checked to be that same file, and read no further than its size. Rejects otherwise.
 */
async function hashContent(
  absolute: string,
  stat: ExpectedFile,
  hash: ReturnType<typeof createHash>,
): Promise<string> {
  if (stat.size < STREAM_FROM_BYTES) {
    const content = readRegularFile(absolute, stat);
    if (content === null)
      throw Object.assign(new Error(`${absolute} changed while read`), { code: "ECHANGED" });
    return hash.update(content).digest("hex");
  }
  const handle = await fs.promises.open(
    absolute,
    fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
  );
  try {
    const now = await handle.stat();
    if (!now.isFile() || now.ino !== stat.ino || now.dev !== stat.dev || now.size !== stat.size)
      throw Object.assign(new Error(`${absolute} changed while read`), { code: "ECHANGED" });
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    let left = stat.size;
    while (left > 0) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, left), stat.size - left);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
      left -= bytesRead;
    }
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}

function missingOrUnreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR" ? ABSENT : `<unreadable:${code ?? "error"}>`;
}

/** Content ids of empty content, which rename detection ignores (every empty file looks alike). */
export const EMPTY_CONTENT = new Set<string>([
  blobId("sha1", Buffer.alloc(0)),
  blobId("sha256", Buffer.alloc(0)),
  `0:${createHash("sha1").digest("hex")}`,
]);
