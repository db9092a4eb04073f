/**
 * Puts single paths back the way they were: a file with its exact bytes and executable bit, a
 * symlink with its target, or nothing at all (removing what appeared, and the empty folders that
 * came with it).
 */

import fs from "node:fs";
import path from "node:path";

/** What one path was before an agent ran, as far as it can be restored. */
export type SavedPath =
  | { kind: "absent" }
  /** `oid` null: the content was not saved (too big, unreadable, or no git to keep it). */
  | { kind: "file"; oid: string | null; mode: number }
  | { kind: "symlink"; target: string }
  /** A directory, a socket, a nested repository: never restored. */
  | { kind: "other"; what: string };

/** How a restoration went; `note` says why when it did not. */
export interface RestoreOutcome {
  restored: boolean;
  note?: string;
}

/** Reads a saved blob back; null when it is gone. */
export type BlobReader = (oid: string) => Promise<Buffer | null>;

/** Removes a file or symlink at `absolute`, or an empty directory; true when nothing is there any more. */
async function clear(absolute: string): Promise<boolean> {
  const stat = await fs.promises.lstat(absolute).catch(() => null);
  if (stat === null) return true;
  try {
    if (stat.isDirectory()) await fs.promises.rmdir(absolute);
    else await fs.promises.unlink(absolute);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes `absolute` what `saved` describes. A file is rewritten from its blob (never through a
 * symlink the agent may have put there) with its saved mode; a directory now standing where a file
 * was is only replaced when empty. Never rejects: failures come back as `{ restored: false, note }`.
 */
export async function restorePath(
  absolute: string,
  saved: SavedPath,
  read: BlobReader,
): Promise<RestoreOutcome> {
  try {
    if (saved.kind === "other")
      return { restored: false, note: `it was a ${saved.what}, which sssf does not restore` };
    if (saved.kind === "absent") {
      return (await clear(absolute))
        ? { restored: true }
        : { restored: false, note: "a non-empty directory is there now" };
    }
    let content: Buffer | null = null;
    if (saved.kind === "file") {
      if (saved.oid === null) return { restored: false, note: "its earlier content was not saved" };
      content = await read(saved.oid);
      if (content === null)
        return { restored: false, note: `blob ${saved.oid} is missing from the object database` };
    }
    if (!(await clear(absolute))) return { restored: false, note: "a non-empty directory is there now" };
    await fs.promises.mkdir(path.dirname(absolute), { recursive: true });
    if (saved.kind === "symlink") await fs.promises.symlink(saved.target, absolute);
    else if (content !== null && saved.kind === "file") {
      await fs.promises.writeFile(absolute, content, { flag: "wx", mode: saved.mode });
      // The umask may have trimmed the mode given to open().
      await fs.promises.chmod(absolute, saved.mode);
    }
    return { restored: true };
  } catch (error) {
    return { restored: false, note: (error as Error).message };
  }
}

/**
 * After files under `stopAt` were removed: removes each of `dirs` (absolute, inside `stopAt`) and
 * its parents up to `stopAt` (exclusive) while they are empty and `mayRemove` agrees. Deepest first;
 * never rejects.
 */
export async function removeEmptyDirs(
  dirs: Iterable<string>,
  stopAt: string,
  mayRemove: (absolute: string) => boolean,
): Promise<void> {
  const candidates = new Set<string>();
  for (let dir of dirs) {
    while (dir !== stopAt && dir.startsWith(`${stopAt}${path.sep}`)) {
      candidates.add(dir);
      dir = path.dirname(dir);
    }
  }
  const deepestFirst = [...candidates].sort((a, b) => b.length - a.length);
  for (const dir of deepestFirst) {
    if (!mayRemove(dir)) continue;
    await fs.promises.rmdir(dir).catch(() => {});
  }
}
