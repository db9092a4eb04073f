/**
 * What paths inside the run root were before a send: dirty paths from the snapshot, clean ones from
 * the commit it was taken against, and which folders held anything.
 */

import fs from "node:fs";
import path from "node:path";
import { ABSENT, DIRECTORY } from "../code/fingerprint.js";
import type { TreeSnapshot } from "../code/working-tree.js";
import { readBlob, treeEntriesAt } from "./blob-store.js";
import type { SavedPath } from "./restore-paths.js";

/** A dirty path's state from its snapshot fingerprint and what is on disk now (mode, link target). Never rejects. */
export async function savedState(absolute: string, fingerprint: string): Promise<SavedPath> {
  if (fingerprint === ABSENT) return { kind: "absent" };
  if (fingerprint === DIRECTORY) return { kind: "other", what: "nested repository" };
  if (fingerprint.startsWith("<")) return { kind: "other", what: "unreadable file" };
  const stat = await fs.promises.lstat(absolute).catch(() => null);
  if (stat?.isSymbolicLink()) {
    const target = await fs.promises.readlink(absolute).catch(() => null);
    if (target !== null) return { kind: "symlink", target };
  }
  return { kind: "file", oid: fingerprint, mode: (stat?.mode ?? 0o644) & 0o7777 };
}

function modeOf(mode: string): number {
  return mode === "100755" ? 0o755 : 0o644;
}

/** What clean paths were: their entry in the commit the snapshot was taken against. */
export async function headStates(
  root: string,
  commit: string | null,
  files: string[],
): Promise<Map<string, SavedPath>> {
  const entries = await treeEntriesAt(root, commit, files);
  const states = new Map<string, SavedPath>();
  for (const file of files) {
    const entry = entries.get(file);
    if (entry === undefined) states.set(file, { kind: "absent" });
    else if (entry.mode === "120000") {
      const target = await readBlob(root, entry.oid);
      states.set(
        file,
        target === null ? { kind: "other", what: "link" } : { kind: "symlink", target: target.toString() },
      );
    } else if (entry.mode === "160000") states.set(file, { kind: "other", what: "submodule" });
    else states.set(file, { kind: "file", oid: entry.oid, mode: modeOf(entry.mode) });
  }
  return states;
}

/** Folders that held something before the send: never removed by the clean-up. */
export async function knownDirs(before: TreeSnapshot, candidates: string[]): Promise<Set<string>> {
  const known = new Set<string>();
  const held = [...before.entries].filter(([, fingerprint]) => fingerprint !== ABSENT).map(([file]) => file);
  if (before.git)
    held.push(...(await treeEntriesAt(before.root, before.headCommit ?? null, candidates)).keys());
  for (const dir of candidates) if (held.some((file) => file.startsWith(`${dir}/`))) known.add(dir);
  return known;
}

/** Every folder from each of `dirs` up to `root` (exclusive), as POSIX paths relative to `root`. */
export function ancestors(root: string, dirs: string[]): string[] {
  const found = new Set<string>();
  for (const dir of dirs) {
    let relative = path.relative(root, dir).split(path.sep).join("/");
    while (relative !== "" && relative !== "." && !relative.startsWith("..")) {
      found.add(relative);
      relative = path.posix.dirname(relative);
    }
  }
  return [...found];
}
