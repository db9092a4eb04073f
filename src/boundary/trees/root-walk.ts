/**
 * The boundary's own picture of a tree: every entry under a root, walked with `lstat` and never
 * through a link, recorded by kind, mode, size, times, device, inode and link count (a link's target,
 * a regular file's blob id once read). Git's index, its flags and its ignore rules play no part, so
 * `update-index --skip-worktree`, `--assume-unchanged`, `info/exclude` or a `.gitignore` hide nothing.
 * Folders named `node_modules` are summarised: below one only folders are `lstat`ed; every other
 * entry is recorded by name and kind alone, its content never read or stored, so a file created,
 * deleted or turned into another kind there is seen and a file rewritten in place is not
 * (docs/write-boundaries.md says what that lets through).
 */

import fs from "node:fs";
import path from "node:path";

/** One entry of a walk. `oid` is set once the file's content was read (regular files only). */
export interface WalkedEntry {
  kind: "file" | "symlink" | "directory" | "fifo" | "socket" | "device";
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Permission bits (`st_mode & 0o7777`). */
  mode: number;
  nlink: number;
  target?: string;
  oid: string | null;
}

/** Every entry under a root by POSIX path relative to it (the root itself not included). */
export interface Walk {
  root: string;
  entries: Map<string, WalkedEntry>;
  /** The walk stopped at its cap: entries past it are unknown. */
  truncated: boolean;
}

/** The folder name whose entries are compared by `lstat` alone, content never read. */
export const SUMMARISED = "node_modules";
/** Tool caches directly under a summarised folder (vitest's results, babel's and eslint's caches): not walked. */
const SUMMARISED_CACHES: ReadonlySet<string> = new Set([".cache", ".vite", ".vite-temp"]);

/**
 * Most entries one walk records: past it the walk is truncated, and a settle that meets a truncated
 * walk fails the send (what lies past the cap is unknown). About 1.4 KiB of memory per entry while
 * both walks of a send are held (measured: 200,000 entries, +280 MiB).
 */
export const MAX_WALKED = 400_000;

/** True when `relative` lies in a summarised folder (`node_modules` at any depth). */
export function isSummarised(relative: string): boolean {
  return (
    relative === SUMMARISED || relative.startsWith(`${SUMMARISED}/`) || relative.includes(`/${SUMMARISED}/`)
  );
}

function kindOf(stat: fs.Stats): WalkedEntry["kind"] {
  if (stat.isFile()) return "file";
  if (stat.isDirectory()) return "directory";
  if (stat.isSymbolicLink()) return "symlink";
  if (stat.isFIFO()) return "fifo";
  if (stat.isSocket()) return "socket";
  return "device";
}

/** The entry `lstat` gives for `absolute`, or null when it vanished. Never throws. */
export function entryAt(absolute: string): WalkedEntry | null {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(absolute, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (stat === undefined) return null;
  const entry: WalkedEntry = {
    kind: kindOf(stat),
    dev: stat.dev,
    ino: stat.ino,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    mode: stat.mode & 0o7777,
    nlink: stat.nlink,
    oid: null,
  };
  if (entry.kind === "symlink") {
    try {
      entry.target = fs.readlinkSync(absolute);
    } catch {
      return null;
    }
  }
  return entry;
}

/** The kind a directory entry's type says, or null when the file system gives none. */
function kindOfDirent(dirent: fs.Dirent): WalkedEntry["kind"] | null {
  if (dirent.isFile()) return "file";
  if (dirent.isSymbolicLink()) return "symlink";
  if (dirent.isFIFO()) return "fifo";
  if (dirent.isSocket()) return "socket";
  if (dirent.isBlockDevice() || dirent.isCharacterDevice()) return "device";
  return null;
}

/** An entry of a summarised folder: its kind alone (every other field the same for every such entry). */
function nameOnly(kind: WalkedEntry["kind"]): WalkedEntry {
  return { kind, dev: 0, ino: 0, size: 0, mtimeMs: 0, ctimeMs: 0, mode: 0, nlink: 1, oid: null };
}

/** True when nothing about `was` moved: kind, identity, size, times, mode, links, link target. */
export function sameStat(was: WalkedEntry, now: WalkedEntry): boolean {
  return (
    was.kind === now.kind &&
    was.dev === now.dev &&
    was.ino === now.ino &&
    was.size === now.size &&
    was.mtimeMs === now.mtimeMs &&
    was.ctimeMs === now.ctimeMs &&
    was.mode === now.mode &&
    was.nlink === now.nlink &&
    was.target === now.target
  );
}

/**
 * Walks `root` depth first with `lstat`, never following a link; `skip` leaves a path out with
 * everything below it. A file whose `lstat` matches `previous` keeps its blob id. Synchronous on
 * purpose: a trip through the thread pool per entry costs several times the `lstat`. Unreadable
 * folders are recorded without their content. Never throws.
 */
export function walkRoot(
  root: string,
  skip: (relative: string) => boolean,
  previous?: Walk | null,
  maxEntries = MAX_WALKED,
): Walk {
  const entries = new Map<string, WalkedEntry>();
  const pending: string[] = [""];
  const earlier = previous?.entries;
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let dirents: fs.Dirent[];
    try {
      dirents = fs.readdirSync(dir === "" ? root : path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    const summarisedTop = dir === SUMMARISED || dir.endsWith(`/${SUMMARISED}`);
    const summarised = dir !== "" && isSummarised(dir);
    for (const dirent of dirents) {
      const name = dirent.name;
      const relative = dir === "" ? name : `${dir}/${name}`;
      if (skip(relative) || (summarisedTop && SUMMARISED_CACHES.has(name))) continue;
      // In a summarised folder only folders are `lstat`ed: anything else is its name and kind.
      const entry =
        summarised && !dirent.isDirectory() && kindOfDirent(dirent) !== null
          ? nameOnly(kindOfDirent(dirent) as WalkedEntry["kind"])
          : entryAt(path.join(root, relative));
      if (entry === null) continue;
      if (entries.size >= maxEntries) return { root, entries, truncated: true };
      const was = earlier?.get(relative);
      if (was !== undefined && entry.kind === "file" && sameStat(was, entry)) entry.oid = was.oid;
      entries.set(relative, entry);
      if (entry.kind === "directory") pending.push(relative);
    }
  }
  return { root, entries, truncated: false };
}
