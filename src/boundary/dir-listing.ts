/**
 * A shallow listing of one directory that can put its files back: name, kind, size, times and, for
 * small regular files, the blob id of their content stored beforehand (of a folder, its kind only).
 */

import fs from "node:fs";
import path from "node:path";
import { gitBlobFingerprint } from "../code/fingerprint.js";
import type { SavedPath } from "./restore-paths.js";

/** One entry of a listing. `oid` is set only for a regular file whose content was stored. */
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

/** How `listDirectory` filters and stores. */
export interface ListDirectoryOptions {
  /** Only names this accepts are listed (default: all). */
  accept?: (name: string) => boolean;
  /** Regular files up to this many bytes are stored. */
  storeUpTo: number;
  /** Null when there is nowhere to store content: the listing then only records metadata. */
  store: StoreFiles | null;
  /** The same directory's previous listing: unchanged files keep their blob id without being read. */
  previous?: ReadonlyMap<string, ListedEntry>;
  /** At most this many files are stored per listing, so a huge folder costs a bounded time. */
  maxStored: number;
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

/**
 * Lists `dir` one level deep (nothing is followed), storing the content of small regular files
 * through `store`. Entries that vanish while listing are left out; a missing or unreadable `dir`
 * gives an empty map. Never rejects.
 */
export async function listDirectory(
  dir: string,
  options: ListDirectoryOptions,
): Promise<Map<string, ListedEntry>> {
  // Synchronous on purpose: one level of lstat calls takes microseconds each, while the same calls
  // through the thread pool cost ~0.1 ms apiece, and this runs before and after every agent send.
  let dirents: fs.Dirent[];
  try {
    dirents = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    dirents = [];
  }
  const listing = new Map<string, ListedEntry>();
  const toStore: string[] = [];
  for (const dirent of dirents) {
    const name = dirent.name;
    if (options.accept && !options.accept(name)) continue;
    // Of a folder only its kind is ever compared (`changeSinceListing`): no lstat for the sibling
    // repositories a parent folder is usually full of. A file system that gives no type is lstat'ed.
    if (dirent.isDirectory()) {
      listing.set(name, DIRECTORY);
      continue;
    }
    const stat = fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
    if (!stat) continue;
    const target = stat.isSymbolicLink() ? readlinkOrUndefined(path.join(dir, name)) : undefined;
    const earlier = options.previous?.get(name);
    const entry: ListedEntry = {
      kind: kindOf(stat),
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ctimeMs: stat.ctimeMs,
      ino: stat.ino,
      mode: stat.mode & 0o7777,
      oid: earlier && sameAsListed(earlier, stat, target) ? earlier.oid : null,
      ...(target === undefined ? {} : { target }),
    };
    listing.set(name, entry);
    const storable = entry.kind === "file" && entry.size <= options.storeUpTo;
    if (storable && entry.oid === null && toStore.length < options.maxStored) toStore.push(name);
  }
  if (options.store !== null && toStore.length > 0) {
    const stored = await options.store(toStore.map((name) => path.join(dir, name)));
    for (const name of toStore) {
      const entry = listing.get(name);
      if (entry) entry.oid = stored.get(path.join(dir, name)) ?? null;
    }
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

/** Null when `absolute` is as listed (same metadata, or same content and mode); else the change. Never rejects. */
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
  if (entry.kind === "file" && stat.isFile() && entry.oid !== null && (stat.mode & 0o7777) === entry.mode) {
    if ((await gitBlobFingerprint(absolute, entry.oid.length === 64 ? "sha256" : "sha1")) === entry.oid)
      return null;
  }
  if (entry.kind === "symlink" && entry.target === target) return null;
  return "modified";
}
