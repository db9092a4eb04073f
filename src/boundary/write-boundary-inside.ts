/**
 * The part of a write boundary inside a root (the run root, or the operator's checkout in a worktree
 * run): the boundary's own walk of the tree before the send, the exact bytes of every file the
 * boundary does not cover stored in git first (only what the commit lacks), and after the send a walk
 * again, diffed and undone path by path (src/boundary/trees/root-diff.ts). Git's index, its flags and its
 * ignore rules play no part.
 */

import fs from "node:fs";
import path from "node:path";
import { blobId, type ObjectFormat } from "../code/fingerprint.js";
import { readRegularFile } from "../code/safe-read.js";
import { ContentBatch, readBlob, type TreeEntry } from "./trees/blob-store.js";
import { removeEmptyDirs, restorePath, type SavedPath } from "./trees/restore-paths.js";
import { diffRoot, kindName, type RootChange } from "./trees/root-diff.js";
import { isSummarised, MAX_WALKED, type Walk, type WalkedEntry, walkRoot } from "./trees/root-walk.js";
import { type BoundaryBreach, type KeptCopy, withKeptCopy } from "./write-boundary-breach.js";
import type { BoundaryJudge } from "./write-boundary-rules.js";

/** The commit a root's files are compared with, as far as storing and restoring needs it. */
export interface RootHead {
  format: ObjectFormat;
  commit: string | null;
  /** The commit's entries by path relative to the root. */
  tree: ReadonlyMap<string, TreeEntry>;
}

/** How one root is walked and stored. */
export interface InsideOptions {
  root: string;
  /** Root-relative prefixes sssf owns (sessions, database): never walked. */
  exclude: readonly string[];
  judge: BoundaryJudge;
  /** Blob ids stored already (by this boundary), not written again. */
  stored: Set<string>;
  /** Files bigger than this are not stored: a change to one is reported, not restored. */
  storeUpTo: number;
  /** The root's previous walk: files whose `lstat` did not move keep their blob id unread. */
  previous: Walk | null;
  /** The root's commit; null outside git (then nothing is stored, and a changed file cannot be restored). */
  head: RootHead | null;
}

/** The tree before a send. */
export interface InsideCheckpoint {
  before: Walk;
  head: RootHead | null;
}

/** Files up to this size are stored in the run root (the checkout passes its own figure). */
export const STORE_UP_TO_BYTES = 64 * 1024 * 1024;

const NO_GIT_NOTE = "the run root is not a git work tree, so sssf kept no copy of its earlier content";
const NO_COPY =
  "sssf kept no copy of its content (bigger than the size it stores, in a node_modules folder, or unreadable before the send)";

/** The skip rule of a root's walks: its `.git`, and sssf's own prefixes. */
export function skipOf(exclude: readonly string[]): (relative: string) => boolean {
  return (relative) =>
    relative === ".git" || exclude.some((prefix) => relative === prefix || relative.startsWith(`${prefix}/`));
}

/**
 * Walks the root and stores the content of every regular file the boundary does not cover (a
 * `node_modules` folder's excepted), read as src/code/safe-read.ts reads: no link followed, no FIFO
 * or device opened, no more than its size. A file equal to the commit's is not stored (git has it).
 * Never rejects.
 */
export async function checkpointInside(options: InsideOptions): Promise<InsideCheckpoint> {
  const { root, judge, head, stored } = options;
  const before = walkRoot(root, skipOf(options.exclude), options.previous);
  if (head === null) return { before, head };
  // Each content is read here, no link followed; git stores that copy (one process per 4000).
  const batch = new ContentBatch();
  const staged: [WalkedEntry, number][] = [];
  for (const [relative, entry] of before.entries) {
    if (entry.kind !== "file" || entry.oid !== null || entry.size > options.storeUpTo) continue;
    if (isSummarised(relative) || judge(relative) === null) continue;
    const content = readRegularFile(path.join(root, relative), entry);
    if (content === null) continue;
    const oid = blobId(head.format, content);
    entry.oid = oid;
    if (head.tree.get(relative)?.oid === oid || stored.has(oid)) continue;
    staged.push([entry, batch.add(content)]);
  }
  const ids = await batch.store(root);
  for (const [entry, index] of staged) {
    const id = ids[index];
    if (id !== undefined && id !== null && id === entry.oid) stored.add(id);
    else entry.oid = null;
  }
  return { before, head };
}

/**
 * Keeps the current content of `files` (root-relative) before they are undone: resolves to where each
 * one's content went, or null for one it could not keep, which is then left as it is. Never rejects.
 */
export type KeepCurrent = (files: readonly string[]) => Promise<Map<string, KeptCopy | null>>;

/**
 * Walks the root again, diffs it with `checkpoint` and undoes every change `judge` does not allow
 * (and every new special or hard-linked file): created paths removed (with the folders that came with
 * them), renames moved back, modified and deleted files rewritten from their stored blobs with their
 * mode and mtime, a mode set back, a folder put back where a file took its place and the reverse.
 * `onAfter` sees the walk taken after the send before anything is undone; `keep` is given the added
 * and modified paths about to be undone, first. Resolves to one breach per undone change, by path.
 */
export async function settleInside(
  checkpoint: InsideCheckpoint,
  exclude: readonly string[],
  judge: BoundaryJudge,
  onAfter?: (after: Walk) => void,
  keep?: KeepCurrent,
): Promise<BoundaryBreach[]> {
  const { before, head } = checkpoint;
  const root = before.root;
  const after = walkRoot(root, skipOf(exclude), before);
  onAfter?.(after);
  const changes = diffRoot(before, after, judge, head?.format ?? null);
  const flooded: BoundaryBreach[] =
    before.truncated || after.truncated
      ? [
          {
            path: ".",
            change: "modified",
            rule: "outside_writes",
            restored: false,
            note: `the tree holds more than ${MAX_WALKED} entries: sssf cannot tell what changed past them`,
          },
        ]
      : [];
  if (changes.length === 0) return flooded;
  const kept = keep
    ? await keep(changes.filter((c) => c.change === "added" || c.change === "modified").map((c) => c.path))
    : new Map<string, KeptCopy | null>();
  const read = (oid: string) => readBlob(root, oid);
  const breaches: BoundaryBreach[] = [];
  const emptied: string[] = [];
  // Removals and moves first, so a folder that replaced a file is gone before the file comes back.
  const order = (c: RootChange) =>
    c.undo === "remove" || c.undo === "remove-folder" || c.undo === "move-back" ? 0 : 1;
  for (const change of [...changes].sort((a, b) => order(a) - order(b))) {
    const copy = kept.get(change.path);
    if (copy === null && (change.change === "added" || change.change === "modified")) {
      breaches.push(
        breachOf(change, { restored: false, note: "sssf could not keep a copy of it: left as it is" }),
      );
      continue;
    }
    const outcome = await undo(root, change, before, head, read);
    if (!outcome.restored && copy?.movedTo) {
      // Nothing took its place: what it held goes back where it was.
      await fs.promises.rename(copy.movedTo, path.join(root, change.path)).then(
        () => kept.delete(change.path),
        () => undefined,
      );
    }
    if (change.undo === "remove" || change.undo === "remove-folder" || change.undo === "move-back")
      emptied.push(path.dirname(path.join(root, change.path)));
    breaches.push(breachOf(change, withKeptCopy(outcome, kept.get(change.path) ?? null)));
  }
  // Folders that came with removed paths go too; folders that were there before stay.
  await removeEmptyDirs(
    emptied,
    root,
    (dir) => !before.entries.has(path.relative(root, dir).split(path.sep).join("/")),
  );
  return [...flooded, ...breaches].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function breachOf(
  change: RootChange,
  outcome: Pick<BoundaryBreach, "restored" | "note" | "keptBlob" | "keptPath">,
): BoundaryBreach {
  const note = [change.note, outcome.note].filter(Boolean).join("; ");
  return {
    path: change.path,
    change: change.change,
    ...(change.previousPath ? { previousPath: change.previousPath } : {}),
    rule: change.rule,
    restored: outcome.restored,
    ...(note ? { note } : {}),
    ...(outcome.keptBlob ? { keptBlob: outcome.keptBlob } : {}),
    ...(outcome.keptPath ? { keptPath: outcome.keptPath } : {}),
  };
}

/** What `entry` (from the walk before the send) can be put back as. */
function savedOf(entry: WalkedEntry | undefined): SavedPath {
  if (entry === undefined) return { kind: "absent" };
  if (entry.kind === "symlink" && entry.target !== undefined)
    return { kind: "symlink", target: entry.target };
  if (entry.kind === "file") return { kind: "file", oid: entry.oid, mode: entry.mode };
  return { kind: "other", what: kindName(entry.kind).replace(/^an? /, "") };
}

type Outcome = { restored: boolean; note?: string };

async function undo(
  root: string,
  change: RootChange,
  before: Walk,
  head: RootHead | null,
  read: (oid: string) => Promise<Buffer | null>,
): Promise<Outcome> {
  const absolute = path.join(root, change.path);
  try {
    switch (change.undo) {
      case "remove":
        return await restorePath(absolute, { kind: "absent" }, read);
      case "remove-folder":
        await fs.promises.rm(absolute, { recursive: true, force: true });
        return { restored: true };
      case "move-back": {
        const to = path.join(root, change.previousPath as string);
        await fs.promises.mkdir(path.dirname(to), { recursive: true });
        await fs.promises.rename(absolute, to);
        return { restored: true };
      }
      case "mode": {
        await fs.promises.chmod(absolute, (before.entries.get(change.path) as WalkedEntry).mode);
        return { restored: true };
      }
      case "unlink-copy":
        return await breakLink(absolute);
      case "replace-kind":
        await fs.promises.rm(absolute, { recursive: true, force: true });
        if (!before.entries.has(change.path)) return { restored: true };
        return await putBack(root, change.path, before, head, read);
      case "rewrite":
        return await putBack(root, change.path, before, head, read);
    }
  } catch (error) {
    return { restored: false, note: (error as Error).message };
  }
}

/** Puts `relative` back as `before` had it: a file from its blob (mode and mtime too), a link, a whole folder. */
async function putBack(
  root: string,
  relative: string,
  before: Walk,
  head: RootHead | null,
  read: (oid: string) => Promise<Buffer | null>,
): Promise<Outcome> {
  const entry = before.entries.get(relative);
  const absolute = path.join(root, relative);
  if (entry?.kind === "directory") {
    await fs.promises.mkdir(absolute, { recursive: true });
    const failed: string[] = [];
    for (const [name, below] of before.entries) {
      if (!name.startsWith(`${relative}/`)) continue;
      if (below.kind === "directory") await fs.promises.mkdir(path.join(root, name), { recursive: true });
      else if (!(await putBack(root, name, before, head, read)).restored) failed.push(name);
    }
    await fs.promises.chmod(absolute, entry.mode);
    return failed.length === 0
      ? { restored: true }
      : {
          restored: false,
          note: `could not put back ${failed.slice(0, 5).join(", ")}${failed.length > 5 ? ` and ${failed.length - 5} more` : ""}`,
        };
  }
  if (entry?.kind === "file" && head === null) return { restored: false, note: NO_GIT_NOTE };
  const saved = savedOf(entry);
  if (saved.kind === "file" && saved.oid === null) return { restored: false, note: NO_COPY };
  const outcome = await restorePath(absolute, saved, read);
  if (outcome.restored && entry?.kind === "file") {
    const time = entry.mtimeMs / 1000;
    await fs.promises.utimes(absolute, time, time).catch(() => undefined);
  }
  return outcome;
}

/** Gives a hard-linked file a name of its own: its bytes copied into a new file, the shared one unlinked. */
async function breakLink(absolute: string): Promise<Outcome> {
  const stat = fs.lstatSync(absolute, { throwIfNoEntry: false });
  if (!stat?.isFile()) return { restored: true };
  const content = readRegularFile(absolute, stat);
  await fs.promises.unlink(absolute);
  if (content === null) return { restored: true, note: "unreadable: removed" };
  await fs.promises.writeFile(absolute, content, { flag: "wx", mode: stat.mode & 0o7777 });
  return {
    restored: true,
    note: "the link is broken: the file here keeps its content, the one elsewhere is no longer shared",
  };
}
