import fs from "node:fs";
import path from "node:path";
import { SssfError } from "../errors/index.js";
import { isExcluded, normalizeExcludes } from "./exclude-prefixes.js";
import { ABSENT, DIRECTORY, EMPTY_CONTENT, gitBlobFingerprint } from "./fingerprint.js";
import { gitStatus, locateGitRepo, readTreeSync } from "./git.js";
import { mapLimited } from "./map-limited.js";
import type { PathChange } from "./path-change.js";
import { walkTree } from "./walk-tree.js";

/**
 * The state of a working tree at one moment. In git, `entries` holds only the paths that differ from
 * HEAD (fingerprint = git object id of the worktree content, "<deleted>" when gone): a path absent
 * from `entries` is as in HEAD. Outside git, `entries` holds every file.
 */
export interface TreeSnapshot {
  root: string;
  /** Relative POSIX path -> content fingerprint. */
  entries: Map<string, string>;
  git: boolean;
  /** Git only: the commit `entries` differ from; null in a repository without commits. */
  headCommit?: string | null;
  /** Git only: HEAD's fingerprint of each path in `entries` ("<deleted>" when HEAD lacks it). */
  headEntries?: Map<string, string>;
  /** Normalized excluded prefixes, so a diff across commits leaves them out too. */
  exclude?: string[];
  /**
   * Git only: the `st_mode` (lstat) of every path `git status` listed that exists, mode-only changes
   * included (those are left out of `entries`, whose fingerprints are content only).
   */
  modes?: Map<string, number>;
}

export interface SnapshotOptions {
  /** Repo-relative path prefixes (or absolute paths inside the root) to ignore, e.g. "adws/adw_data". */
  exclude?: string[];
}

/**
 * Snapshots `root` for change detection. Uses git when `root` is inside a work tree (a few `git`
 * processes plus hashing the dirty files, so it stays fast on big repos; works without commits) and
 * walks the tree otherwise (a missing root gives an empty snapshot). Rejects with SssfError ("internal")
 * only when `root` is in a git work tree and `git status` then fails.
 */
export async function snapshotWorkingTree(
  root: string,
  options: SnapshotOptions = {},
): Promise<TreeSnapshot> {
  const absoluteRoot = path.resolve(root);
  const exclude = normalizeExcludes(absoluteRoot, options.exclude);
  const location = await locateGitRepo(absoluteRoot);
  if (location === null) {
    return { root: absoluteRoot, entries: await walkTree(absoluteRoot, exclude), git: false, exclude };
  }
  const status = await gitStatus(absoluteRoot, location);
  if (status === null) throw new SssfError("internal", `git status failed in ${absoluteRoot}`);
  const paths = [...status.paths.keys()].filter((file) => !isExcluded(file, exclude));
  const [fingerprints, stModes] = await Promise.all([
    mapLimited(paths, 32, (file) => gitBlobFingerprint(path.join(absoluteRoot, file), location.format)),
    mapLimited(paths, 32, (file) =>
      // fs.promises is read here, not imported: a clean tree's snapshot never loads Node's fs/promises.
      fs.promises.lstat(path.join(absoluteRoot, file)).then(
        (stat) => stat.mode,
        () => null,
      ),
    ),
  ]);
  const entries = new Map<string, string>();
  const headEntries = new Map<string, string>();
  const modes = new Map<string, number>();
  paths.forEach((file, i) => {
    const fingerprint = fingerprints[i] ?? ABSENT;
    const inHead = status.paths.get(file) ?? ABSENT;
    const mode = stModes[i];
    if (mode !== null && mode !== undefined) modes.set(file, mode);
    // Listed by status yet equal to HEAD (mode change, staged-then-reverted): not a difference.
    if (fingerprint === inHead) return;
    entries.set(file, fingerprint);
    headEntries.set(file, inHead);
  });
  return { root: absoluteRoot, entries, git: true, headCommit: status.head, headEntries, exclude, modes };
}

/**
 * What changed between two snapshots of the same root, sorted by path. A deleted and an added path with
 * identical non-empty content become one `renamed` change. When HEAD moved in between (someone
 * committed), both commits are read with git so committed work still counts. Throws SssfError
 * ("internal") when the snapshots are of different roots or kinds.
 */
export function diffSnapshots(before: TreeSnapshot, after: TreeSnapshot): PathChange[] {
  if (before.root !== after.root || before.git !== after.git) {
    throw new SssfError("internal", `cannot diff snapshots of ${before.root} and ${after.root}`);
  }
  const candidates = new Set([...before.entries.keys(), ...after.entries.keys()]);
  let baseBefore = (file: string) => before.headEntries?.get(file) ?? after.headEntries?.get(file) ?? ABSENT;
  let baseAfter = baseBefore;
  if (before.git && (before.headCommit ?? null) !== (after.headCommit ?? null)) {
    const fromTree = readTreeSync(before.root, before.headCommit ?? null);
    const toTree = readTreeSync(after.root, after.headCommit ?? null);
    const exclude = after.exclude ?? [];
    for (const file of new Set([...fromTree.keys(), ...toTree.keys()])) {
      if (fromTree.get(file) !== toTree.get(file) && !isExcluded(file, exclude)) candidates.add(file);
    }
    baseBefore = (file) => before.headEntries?.get(file) ?? fromTree.get(file) ?? ABSENT;
    baseAfter = (file) => after.headEntries?.get(file) ?? toTree.get(file) ?? ABSENT;
  }

  const changes: PathChange[] = [];
  const contentBefore = new Map<string, string>();
  const contentAfter = new Map<string, string>();
  for (const file of candidates) {
    const was = before.entries.get(file) ?? baseBefore(file);
    const now = after.entries.get(file) ?? baseAfter(file);
    if (was === now) continue;
    if (now === ABSENT) {
      changes.push({ path: file, change: "deleted" });
      contentBefore.set(file, was);
    } else if (was === ABSENT) {
      changes.push({ path: file, change: "added" });
      contentAfter.set(file, now);
    } else {
      changes.push({ path: file, change: "modified" });
    }
  }
  return pairRenames(changes, contentBefore, contentAfter).sort((a, b) => compare(a.path, b.path));
}

/** Folds each added path into a deleted one with the same content (first by path wins). */
function pairRenames(
  changes: PathChange[],
  contentBefore: Map<string, string>,
  contentAfter: Map<string, string>,
): PathChange[] {
  const deletedByContent = new Map<string, string[]>();
  for (const [file, content] of [...contentBefore].sort((a, b) => compare(a[0], b[0]))) {
    if (!isRenameable(content)) continue;
    deletedByContent.set(content, [...(deletedByContent.get(content) ?? []), file]);
  }
  const renamedFrom = new Set<string>();
  const result: PathChange[] = [];
  for (const change of [...changes].sort((a, b) => compare(a.path, b.path))) {
    if (change.change !== "added") {
      result.push(change);
      continue;
    }
    const content = contentAfter.get(change.path) ?? "";
    const previousPath = isRenameable(content) ? deletedByContent.get(content)?.shift() : undefined;
    if (previousPath === undefined) result.push(change);
    else {
      renamedFrom.add(previousPath);
      result.push({ path: change.path, change: "renamed", previousPath });
    }
  }
  return result.filter((change) => !(change.change === "deleted" && renamedFrom.has(change.path)));
}

function isRenameable(content: string): boolean {
  return content !== DIRECTORY && !content.startsWith("<") && !EMPTY_CONTENT.has(content);
}

/** Byte order, so the result does not depend on the locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
