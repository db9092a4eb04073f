/**
 * What changed under a root between two walks (src/boundary/trees/root-walk.ts), path by path, judged by an
 * agent's boundary: created, deleted, modified (content, mode, link target, kind), renamed (same
 * device and inode on both sides), a new folder outside the boundary as one change, and the two kinds
 * of entry the boundary never lets stand anywhere: special files (FIFO, socket, device) and regular
 * files hard-linked elsewhere (a write through one changes a file outside the tree).
 */

import path from "node:path";
import { blobId, type ObjectFormat } from "../../code/fingerprint.js";
import type { PathChange } from "../../code/path-change.js";
import { readRegularFile } from "../../code/safe-read.js";
import { type BoundaryJudge, type BoundaryRule, worseRule } from "../write-boundary-rules.js";
import { isSummarised, sameStat, type Walk, type WalkedEntry } from "./root-walk.js";

/** One change the boundary must undo. */
export interface RootChange {
  path: string;
  change: PathChange["change"];
  previousPath?: string;
  rule: BoundaryRule;
  /** How to undo it. */
  undo: "remove" | "remove-folder" | "move-back" | "rewrite" | "mode" | "unlink-copy" | "replace-kind";
  note?: string;
}

/** A new folder holding more than this many entries outside the boundary is one change. */
export const FOLDER_AS_ONE_FROM = 50;

const SPECIAL: ReadonlySet<WalkedEntry["kind"]> = new Set(["fifo", "socket", "device"]);

/** `a FIFO`, `a folder`: what an entry is, for notes. */
export function kindName(kind: WalkedEntry["kind"]): string {
  const names: Record<WalkedEntry["kind"], string> = {
    file: "a file",
    symlink: "a symlink",
    directory: "a folder",
    fifo: "a FIFO",
    socket: "a socket",
    device: "a device node",
  };
  return names[kind];
}

/** True when `relative` lies below one of `dirs` (each without a trailing slash). */
function below(relative: string, dirs: ReadonlySet<string>): boolean {
  for (let cut = relative.lastIndexOf("/"); cut > 0; cut = relative.lastIndexOf("/", cut - 1)) {
    if (dirs.has(relative.slice(0, cut))) return true;
  }
  return false;
}

/** The blob id of the file at `absolute` as `now` describes it, or null when it cannot be read so. */
function oidNow(absolute: string, now: WalkedEntry, format: ObjectFormat): string | null {
  const content = readRegularFile(absolute, now);
  return content === null ? null : blobId(format, content);
}

/**
 * The changes from `before` to `after` (walks of the same root) that `judge` does not allow, plus
 * every special file and hard-linked file that is new or changed, wherever it is. A file's content
 * counts as changed when its blob id differs (read again only when its `lstat` moved and its earlier
 * id is known), else when its size, mtime or inode moved. Sorted by path. Never throws.
 */
export function diffRoot(
  before: Walk,
  after: Walk,
  judge: BoundaryJudge,
  format: ObjectFormat | null,
): RootChange[] {
  const root = after.root;
  const added: string[] = [];
  const deleted: string[] = [];
  const changed: string[] = [];
  for (const [relative, was] of before.entries) {
    const now = after.entries.get(relative);
    if (now === undefined) deleted.push(relative);
    else if (!sameStat(was, now)) changed.push(relative);
  }
  for (const relative of after.entries.keys()) if (!before.entries.has(relative)) added.push(relative);

  const changes: RootChange[] = [];
  // Kind changes cover what is below them: a folder's content came or went with it.
  const newFolders = new Set<string>();
  const goneFolders = new Set<string>();
  for (const relative of changed) {
    const was = before.entries.get(relative) as WalkedEntry;
    const now = after.entries.get(relative) as WalkedEntry;
    if (was.kind !== now.kind) {
      if (now.kind === "directory") newFolders.add(relative);
      if (was.kind === "directory") goneFolders.add(relative);
    }
  }
  for (const relative of added) {
    if (after.entries.get(relative)?.kind === "directory") newFolders.add(relative);
  }
  for (const relative of deleted) {
    if (before.entries.get(relative)?.kind === "directory") goneFolders.add(relative);
  }

  // Renames: a deleted and a created regular file with one device, inode, size and mtime (an inode
  // is reused by the next file created), and the same content when the earlier one's is known.
  const deletedByInode = new Map<string, string>();
  for (const relative of deleted) {
    const was = before.entries.get(relative) as WalkedEntry;
    // A summarised folder's entries carry no inode (0): never paired.
    if (was.kind === "file" && was.ino !== 0)
      deletedByInode.set(`${was.dev}:${was.ino}:${was.size}:${was.mtimeMs}`, relative);
  }
  const renameOf = (relative: string, now: WalkedEntry): string | undefined => {
    if (now.kind !== "file" || now.ino === 0) return undefined;
    const from = deletedByInode.get(`${now.dev}:${now.ino}:${now.size}:${now.mtimeMs}`);
    const was = from === undefined ? undefined : before.entries.get(from);
    if (was?.oid == null || format === null) return from;
    return oidNow(path.join(root, relative), now, format) === was.oid ? from : undefined;
  };
  const renamedFrom = new Set<string>();

  for (const relative of changed) {
    const was = before.entries.get(relative) as WalkedEntry;
    const now = after.entries.get(relative) as WalkedEntry;
    if (below(relative, newFolders) || below(relative, goneFolders)) continue;
    const rule = judge(relative);
    if (was.kind !== now.kind) {
      const special = SPECIAL.has(now.kind);
      if (rule === null && !special) continue;
      changes.push({
        path: relative,
        change: "modified",
        rule: rule ?? "special_file",
        undo: "replace-kind",
        note: `${kindName(now.kind)} took the place of ${kindName(was.kind).replace(/^an? /, "the ")}`,
      });
      continue;
    }
    if (now.kind === "directory") {
      if (rule !== null && judge(`${relative}/`) !== null && was.mode !== now.mode)
        changes.push({ path: relative, change: "modified", rule, undo: "mode", note: modeNote(was, now) });
      continue;
    }
    if (now.kind === "symlink") {
      if (rule !== null && was.target !== now.target)
        changes.push({ path: relative, change: "modified", rule, undo: "rewrite" });
      continue;
    }
    if (SPECIAL.has(now.kind)) {
      changes.push({
        path: relative,
        change: "modified",
        rule: rule ?? "special_file",
        undo: "replace-kind",
      });
      continue;
    }
    const content =
      was.oid !== null && format !== null
        ? oidNow(path.join(root, relative), now, format) !== was.oid
        : was.size !== now.size || was.mtimeMs !== now.mtimeMs || was.ino !== now.ino || was.dev !== now.dev;
    const linked = now.nlink > 1 && (now.nlink > was.nlink || content) && !isSummarised(relative);
    if (rule !== null && (content || was.mode !== now.mode)) {
      changes.push({
        path: relative,
        change: "modified",
        rule,
        undo: content ? "rewrite" : "mode",
        ...(content ? {} : { note: modeNote(was, now) }),
        ...(linked ? { note: hardLinkNote(now) } : {}),
      });
    } else if (rule === null && linked) {
      changes.push({
        path: relative,
        change: "modified",
        rule: "hard_link",
        undo: "unlink-copy",
        note: hardLinkNote(now),
      });
    }
  }

  // New folders: one change for a big one wholly outside the boundary, else entry by entry.
  const asOne = new Set<string>();
  for (const folder of [...newFolders].sort()) {
    if (below(folder, newFolders) || below(folder, goneFolders)) continue;
    if (before.entries.has(folder)) continue; // a kind change, reported above
    const inside = added.filter((relative) => relative.startsWith(`${folder}/`));
    if (inside.length <= FOLDER_AS_ONE_FROM) continue;
    const rules = new Set(inside.map((relative) => judge(relative)));
    const [only] = rules;
    if (rules.size !== 1 || only === null || only === undefined) continue;
    asOne.add(folder);
    changes.push({
      path: folder,
      change: "added",
      rule: only,
      undo: "remove-folder",
      note: `a new folder of ${inside.length} entries, removed with everything in it`,
    });
  }

  for (const relative of added) {
    const now = after.entries.get(relative) as WalkedEntry;
    if (now.kind === "directory" || below(relative, asOne)) continue;
    if (below(relative, newFolders) && before.entries.has(firstGone(relative, newFolders))) continue;
    const from = renameOf(relative, now);
    const rule = from === undefined ? judge(relative) : worseRule(judge(relative), judge(from));
    const special = SPECIAL.has(now.kind);
    const linked = now.kind === "file" && now.nlink > 1 && from === undefined && !isSummarised(relative);
    if (from !== undefined && rule !== null) {
      renamedFrom.add(from);
      changes.push({ path: relative, change: "renamed", previousPath: from, rule, undo: "move-back" });
    } else if (rule !== null) {
      const note = special ? `it is ${kindName(now.kind)}` : linked ? hardLinkNote(now) : undefined;
      changes.push({ path: relative, change: "added", rule, undo: "remove", ...(note ? { note } : {}) });
    } else if (special) {
      changes.push({
        path: relative,
        change: "added",
        rule: "special_file",
        undo: "remove",
        note: `it is ${kindName(now.kind)}`,
      });
    } else if (linked) {
      changes.push({
        path: relative,
        change: "added",
        rule: "hard_link",
        undo: "unlink-copy",
        note: hardLinkNote(now),
      });
    }
  }

  for (const relative of deleted) {
    const was = before.entries.get(relative) as WalkedEntry;
    if (was.kind === "directory" || renamedFrom.has(relative)) continue;
    if (below(relative, goneFolders) && after.entries.get(firstGone(relative, goneFolders)) !== undefined)
      continue;
    const rule = judge(relative);
    if (rule !== null) changes.push({ path: relative, change: "deleted", rule, undo: "rewrite" });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The outermost folder of `dirs` that `relative` lies below. */
function firstGone(relative: string, dirs: ReadonlySet<string>): string {
  for (let cut = relative.indexOf("/"); cut > 0; cut = relative.indexOf("/", cut + 1)) {
    if (dirs.has(relative.slice(0, cut))) return relative.slice(0, cut);
  }
  return relative;
}

function modeNote(was: WalkedEntry, now: WalkedEntry): string {
  return `its mode changed from ${was.mode.toString(8)} to ${now.mode.toString(8)}`;
}

function hardLinkNote(now: WalkedEntry): string {
  return `a hard link (${now.nlink} names for one file): a write through it changes a file elsewhere too`;
}
