/**
 * A stat fingerprint of a whole folder (or of one file): every entry's kind, size, times, inode and
 * mode, walked without following links, plus the blob id of each small regular file's content
 * stored beforehand. Cheap to take again: only entries whose metadata changed since the previous
 * listing are read and stored, and a diff hashes only the files whose metadata moved.
 */

import fs from "node:fs";
import path from "node:path";
import { gitBlobFingerprint } from "../../code/fingerprint.js";
import { kindOf, type ListedEntry, type StoreFiles } from "./dir-listing.js";

/** One entry of a tree listing: the same record as a directory listing's entry. */
export type TreeEntry = ListedEntry;

/**
 * The entries under one watched path, by POSIX path relative to it ("" is the path itself; a
 * missing path lists nothing). `truncated` when the walk stopped at its entry cap: such a listing
 * says nothing about what it left out, and is never diffed.
 */
export interface TreeListing {
  entries: Map<string, TreeEntry>;
  truncated: boolean;
}

/** How a tree is walked. */
export interface WalkOptions {
  /** Names directly under the walked folder left out with everything below them (tool caches). */
  skipTop?: (name: string) => boolean;
  /** The walk stops (and the listing is `truncated`) past this many entries. */
  maxEntries: number;
  /** The same tree's previous listing: unchanged files keep their blob id without being read. */
  previous?: TreeListing | undefined;
}

/** True when `entry` still describes `later`: same kind, size, times, inode, mode and link target. */
export function sameEntry(entry: TreeEntry, later: TreeEntry): boolean {
  return (
    entry.kind === later.kind &&
    entry.size === later.size &&
    entry.mtimeMs === later.mtimeMs &&
    entry.ctimeMs === later.ctimeMs &&
    entry.ino === later.ino &&
    entry.mode === later.mode &&
    entry.target === later.target
  );
}

function entryOf(absolute: string, previous: TreeEntry | undefined): TreeEntry | null {
  const stat = fs.lstatSync(absolute, { throwIfNoEntry: false });
  if (!stat) return null;
  let target: string | undefined;
  if (stat.isSymbolicLink()) {
    try {
      target = fs.readlinkSync(absolute);
    } catch {
      return null; // vanished while walking
    }
  }
  const entry: TreeEntry = {
    kind: kindOf(stat),
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    ino: stat.ino,
    mode: stat.mode & 0o7777,
    oid: null,
    ...(target === undefined ? {} : { target }),
  };
  if (previous && entry.kind === "file" && sameEntry(previous, entry)) entry.oid = previous.oid;
  return entry;
}

/**
 * Walks `target` (absolute) depth first without following links. Synchronous on purpose: tens of
 * thousands of lstat calls take a few tens of milliseconds this way, several times that through the
 * thread pool. Unreadable folders are listed without their content. Never throws.
 */
export function walkListing(target: string, options: WalkOptions): TreeListing {
  const entries = new Map<string, TreeEntry>();
  const previous = options.previous?.entries;
  const root = entryOf(target, previous?.get(""));
  if (root === null) return { entries, truncated: false };
  entries.set("", root);
  const pending: string[] = root.kind === "directory" ? [""] : [];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    const absoluteDir = dir === "" ? target : `${target}${path.sep}${dir}`;
    let names: string[];
    try {
      names = fs.readdirSync(absoluteDir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (dir === "" && options.skipTop?.(name)) continue;
      const relative = dir === "" ? name : `${dir}/${name}`;
      const entry = entryOf(`${absoluteDir}${path.sep}${name}`, previous?.get(relative));
      if (entry === null) continue;
      if (entries.size >= options.maxEntries) return { entries, truncated: true };
      entries.set(relative, entry);
      if (entry.kind === "directory") pending.push(relative);
    }
  }
  return { entries, truncated: false };
}

/**
 * Stores, through one call of `store`, the content of every regular file of each listing (of its
 * `target`) up to `storeUpTo` bytes that has no blob id yet, and records the ids. Files that cannot
 * be read keep a null id.
 */
export async function storeListings(
  listings: readonly { target: string; listing: TreeListing }[],
  store: StoreFiles,
  storeUpTo: number,
): Promise<void> {
  const missing: [string, TreeEntry][] = [];
  for (const { target, listing } of listings) {
    for (const [relative, entry] of listing.entries) {
      if (entry.kind !== "file" || entry.oid !== null || entry.size > storeUpTo) continue;
      missing.push([relative === "" ? target : path.join(target, relative), entry]);
    }
  }
  if (missing.length === 0) return;
  const ids = await store(missing.map(([absolute]) => absolute));
  for (const [absolute, entry] of missing) entry.oid = ids.get(absolute) ?? null;
}

/** What happened to one path of a watched tree. `what` says which part of it changed. */
export interface TreeChange {
  path: string;
  change: "added" | "modified" | "deleted";
  what: "content" | "mode" | "kind" | "link";
}

/** True when some folder of `relative` (itself excluded) is in `dirs`. */
function belowOneOf(relative: string, dirs: ReadonlySet<string>): boolean {
  if (dirs.has("")) return relative !== "";
  for (let cut = relative.lastIndexOf("/"); cut > 0; cut = relative.lastIndexOf("/", cut - 1)) {
    if (dirs.has(relative.slice(0, cut))) return true;
  }
  return false;
}

/**
 * The changes from `before` to `after` (listings of the same `target`), sorted by path. A folder
 * that appeared or vanished is one change (what was below it is not listed again); a folder's own
 * times are not a change, its mode is. A file whose metadata moved is hashed, and counts only when
 * its content or mode differ (a file without a stored blob counts when its size or mtime moved).
 * One pass over the entries without reading any file that kept its metadata.
 */
export async function diffListings(
  target: string,
  before: TreeListing,
  after: TreeListing,
): Promise<TreeChange[]> {
  const moved: string[] = [];
  for (const [relative, was] of before.entries) {
    const now = after.entries.get(relative);
    if (now === undefined || !sameEntry(was, now)) moved.push(relative);
  }
  for (const relative of after.entries.keys()) if (!before.entries.has(relative)) moved.push(relative);
  const changes: TreeChange[] = [];
  const gone = new Set<string>();
  for (const relative of moved.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (belowOneOf(relative, gone)) continue;
    const was = before.entries.get(relative);
    const now = after.entries.get(relative);
    if (was === undefined || now === undefined) {
      changes.push({ path: relative, change: was === undefined ? "added" : "deleted", what: "kind" });
      if ((was ?? now)?.kind === "directory") gone.add(relative);
      continue;
    }
    const what = await changedPart(relative === "" ? target : path.join(target, relative), was, now);
    if (what === null) continue;
    changes.push({ path: relative, change: "modified", what });
    if (what === "kind" && was.kind === "directory") gone.add(relative);
  }
  return changes;
}

async function changedPart(
  absolute: string,
  was: TreeEntry,
  now: TreeEntry,
): Promise<TreeChange["what"] | null> {
  if (was.kind !== now.kind) return "kind";
  if (sameEntry(was, now)) return null;
  if (was.kind === "symlink") return was.target === now.target ? null : "link";
  if (was.kind !== "file") return was.mode === now.mode ? null : "mode";
  let sameContent = was.size === now.size && was.mtimeMs === now.mtimeMs;
  if (was.oid !== null) {
    sameContent =
      was.size === now.size &&
      (await gitBlobFingerprint(absolute, was.oid.length === 64 ? "sha256" : "sha1")) === was.oid;
  }
  if (!sameContent) return "content";
  return was.mode === now.mode ? null : "mode";
}
