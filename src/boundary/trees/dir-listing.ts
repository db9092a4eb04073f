/**
 * A shallow listing of one directory by `lstat`: name, kind, size, times, inode, mode (of a folder,
 * its kind only). No file's content is read: the listing is of the run root's parent folder, outside
 * the repository, where sssf keeps no copy of anything.
 */

import fs from "node:fs";
import path from "node:path";
import type { SavedPath } from "./restore-paths.js";

/** One entry of a listing (or of a tree listing, whose regular files may carry the blob id of their stored content). */
export interface ListedEntry {
  kind: "file" | "symlink" | "directory" | "other";
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
  oid: string | null;
  /** A symlink's target. */
  target?: string;
}

/** A folder as a listing records it: its kind alone. */
const DIRECTORY: ListedEntry = Object.freeze({
  kind: "directory",
  size: 0,
  mtimeMs: 0,
  ctimeMs: 0,
  ino: 0,
  mode: 0,
  oid: null,
});

/** Stores regular files (absolute paths) and maps each stored one to its blob id. */
export type StoreFiles = (files: string[]) => Promise<Map<string, string>>;

/** How `listDirectory` filters. */
export interface ListDirectoryOptions {
  /** Only names this accepts are listed (default: all). */
  accept?: (name: string) => boolean;
  /**
   * The same directory's previous listing, made with the same `accept`: an unchanged folder keeps its
   * names without being read again.
   */
  previous?: ReadonlyMap<string, ListedEntry>;
}

/** True when `entry` still describes `stat` (and, for a symlink, `target`): nothing touched it. */
export function sameAsListed(entry: ListedEntry, stat: fs.Stats, target?: string): boolean {
  return (
    entry.kind === kindOf(stat) &&
    entry.size === stat.size &&
    entry.mtimeMs === stat.mtimeMs &&
    entry.ctimeMs === stat.ctimeMs &&
    entry.ino === stat.ino &&
    entry.target === target
  );
}

/** The kind of entry `stat` (taken without following links) describes. */
export function kindOf(stat: fs.Stats): ListedEntry["kind"] {
  if (stat.isSymbolicLink()) return "symlink";
  if (stat.isFile()) return "file";
  return stat.isDirectory() ? "directory" : "other";
}

/** The folder a listing read its names from, as it stood then, and the names `accept` took. */
interface ListedNames {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** When this process first saw the folder with these times (`performance.now()`). */
  seenAt: number;
  /** The names were read at least one timestamp tick after `seenAt`: a later listing may take them. */
  settled: boolean;
  /** Each accepted name, and whether it was a folder. */
  names: readonly (readonly [string, boolean])[];
}

const namesOfListing = new WeakMap<ReadonlyMap<string, ListedEntry>, ListedNames>();

/**
 * The longest a folder's timestamp can stay the same while names change in it: a file system that
 * keeps sub-second times stamps from a clock that moves every tick (at most 10 ms); one whose times
 * are whole seconds may be FAT's, two seconds a step.
 */
export function tickOf(folder: Pick<fs.Stats, "mtimeMs" | "ctimeMs">): number {
  return folder.mtimeMs % 1000 === 0 && folder.ctimeMs % 1000 === 0 ? 2500 : 100;
}

/**
 * `dir`'s accepted names and whether each is a folder. A folder whose device, inode and times are
 * those of the `previous` listing (of the same folder, with the same `accept`) keeps that listing's
 * names without being read, once they are settled: read a whole timestamp tick after this process
 * first saw those times, so no name changed in the same tick as that reading (same-tick changes
 * leave a folder's times as they were). A crowded parent folder, such as a temp folder of thousands
 * of entries, was otherwise read before every send. Measured by this process's clock alone, so a
 * file server's clock being off changes nothing.
 */
function namesIn(dir: string, options: ListDirectoryOptions): ListedNames | null {
  let folder: fs.Stats | undefined;
  try {
    folder = fs.statSync(dir, { throwIfNoEntry: false });
  } catch {
    folder = undefined;
  }
  if (folder === undefined) return null;
  // After the look: whatever gave the folder these times happened before now, and the names are read after it.
  const at = performance.now();
  const earlier = options.previous === undefined ? undefined : namesOfListing.get(options.previous);
  const same =
    earlier !== undefined &&
    folder.dev === earlier.dev &&
    folder.ino === earlier.ino &&
    folder.mtimeMs === earlier.mtimeMs &&
    folder.ctimeMs === earlier.ctimeMs;
  if (same && earlier.settled) return earlier;
  let dirents: fs.Dirent[];
  try {
    dirents = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  const seenAt = same ? earlier.seenAt : at;
  return {
    dev: folder.dev,
    ino: folder.ino,
    mtimeMs: folder.mtimeMs,
    ctimeMs: folder.ctimeMs,
    seenAt,
    settled: same && at - seenAt >= tickOf(folder),
    names: dirents
      .filter((dirent) => !options.accept || options.accept(dirent.name))
      .map((dirent) => [dirent.name, dirent.isDirectory()] as const),
  };
}

/**
 * Lists `dir` one level deep (nothing is followed, nothing read). Entries that vanish while listing
 * are left out; a missing or unreadable `dir` gives an empty map. Never throws.
 */
export function listDirectory(dir: string, options: ListDirectoryOptions): Map<string, ListedEntry> {
  // Synchronous on purpose: one level of lstat calls takes microseconds each, while the same calls
  // through the thread pool cost ~0.1 ms apiece, and this runs before and after every agent send.
  const read = namesIn(dir, options);
  const listing = new Map<string, ListedEntry>();
  if (read !== null) namesOfListing.set(listing, read);
  for (const [name, isDirectory] of read?.names ?? []) {
    // Of a folder only its kind is ever compared (`changeSinceListing`): no lstat for the sibling
    // repositories a parent folder is usually full of. A file system that gives no type is lstat'ed.
    if (isDirectory) {
      listing.set(name, DIRECTORY);
      continue;
    }
    const stat = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
    if (!stat) continue;
    const target = stat.isSymbolicLink() ? readlinkOrUndefined(path.join(dir, name)) : undefined;
    const entry: ListedEntry = {
      kind: kindOf(stat),
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ctimeMs: stat.ctimeMs,
      ino: stat.ino,
      mode: stat.mode & 0o7777,
      oid: null,
      ...(target === undefined ? {} : { target }),
    };
    listing.set(name, entry);
  }
  return listing;
}

function readlinkOrUndefined(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined; // vanished while listing
  }
}

/** What a listed entry can be restored to; an unlisted name was absent. */
export function savedFromListing(entry: ListedEntry | undefined): SavedPath {
  if (entry === undefined) return { kind: "absent" };
  if (entry.kind === "file") return { kind: "file", oid: entry.oid, mode: entry.mode };
  if (entry.kind === "symlink" && entry.target !== undefined)
    return { kind: "symlink", target: entry.target };
  return { kind: "other", what: entry.kind === "directory" ? "directory" : "special file" };
}

/** Null when `absolute` is as listed (same metadata; a folder still a folder); else the change. Never rejects. */
export async function changeSinceListing(
  absolute: string,
  entry: ListedEntry | undefined,
): Promise<"added" | "modified" | "deleted" | null> {
  const stat = await fs.promises.lstat(absolute).catch(() => null);
  if (stat === null) return entry === undefined ? null : "deleted";
  if (entry === undefined) return "added";
  const target = stat.isSymbolicLink()
    ? await fs.promises.readlink(absolute).catch(() => undefined)
    : undefined;
  if (sameAsListed(entry, stat, target)) return null;
  if (entry.kind === "directory" && stat.isDirectory()) return null;

  if (entry.kind === "symlink" && entry.target === target) return null;
  return "modified";
}
