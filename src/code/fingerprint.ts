import { createHash } from "node:crypto";
import fs from "node:fs";

/** Fingerprint of a path that does not exist (deleted, or never there). */
export const ABSENT = "<deleted>";
/** Fingerprint of a directory listed where a file could be (a nested repository, a submodule). */
export const DIRECTORY = "<directory>";

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
  try {
    if (stat.isSymbolicLink()) return blobId(format, Buffer.from(await fs.promises.readlink(absolute)));
    const hash = createHash(format).update(`blob ${stat.size}\0`);
    return await hashContent(absolute, stat.size, hash);
  } catch (error) {
    return missingOrUnreadable(error);
  }
}

/** Git's object id of `content` as a blob. */
export function blobId(format: ObjectFormat, content: Buffer): string {
  return createHash(format).update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** sha1 of a file's content, streamed for big files. Rejects when the file cannot be read. */
export async function contentSha1(absolute: string, size: number): Promise<string> {
  return hashContent(absolute, size, createHash("sha1"));
}

async function hashContent(
  absolute: string,
  size: number,
  hash: ReturnType<typeof createHash>,
): Promise<string> {
  if (size < STREAM_FROM_BYTES) return hash.update(await fs.promises.readFile(absolute)).digest("hex");
  for await (const chunk of fs.createReadStream(absolute)) hash.update(chunk as Buffer);
  return hash.digest("hex");
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
