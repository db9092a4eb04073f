/**
 * The part of a write boundary inside the run root: a working-tree snapshot before the send, whose
 * dirty paths outside the boundary have their exact content stored in git first, and after the send
 * the diff, judged and undone path by path.
 */

import fs from "node:fs";
import path from "node:path";
import { diffSnapshots, snapshotWorkingTree, type TreeSnapshot } from "../code/working-tree.js";
import type { PathChange } from "../gates/gate.js";
import { isOwnOutputFile } from "../util/own-output-files.js";
import { readBlob, storeBlobs } from "./blob-store.js";
import { removeEmptyDirs, restorePath, type SavedPath } from "./restore-paths.js";
import { ancestors, headStates, knownDirs, savedState } from "./write-boundary-before.js";
import { type BoundaryBreach, type KeptCopy, withKeptCopy } from "./write-boundary-breach.js";
import { restoreModeChanges } from "./write-boundary-modes.js";
import { type BoundaryJudge, worseRule } from "./write-boundary-rules.js";

/** The tree before a send, with what each dirty path outside the boundary was. */
export interface InsideCheckpoint {
  before: TreeSnapshot;
  saved: Map<string, SavedPath>;
}

const NO_GIT_NOTE = "the run root is not a git work tree, so sssf kept no copy of its earlier content";

/**
 * Snapshots `root` and stores the content of every dirty path the boundary does not cover (blobs
 * already stored by this boundary, listed in `stored`, are not written again; a file bigger than
 * `storeUpTo` bytes is not stored, and cannot be restored). Rejects only when `git status` fails in a
 * work tree.
 */
export async function checkpointInside(
  root: string,
  exclude: string[],
  judge: BoundaryJudge,
  stored: Set<string>,
  storeUpTo = Number.POSITIVE_INFINITY,
): Promise<InsideCheckpoint> {
  const before = await snapshotWorkingTree(root, { exclude });
  const saved = new Map<string, SavedPath>();
  if (!before.git) return { before, saved };
  const guarded = [...before.entries].filter(([file]) => judge(file) !== null);
  const states = await Promise.all(
    guarded.map(([file, fingerprint]) => savedState(path.join(root, file), fingerprint)),
  );
  const toStore: string[] = [];
  guarded.forEach(([file], i) => {
    const state = states[i] as SavedPath;
    saved.set(file, state);
    if (state.kind !== "file" || state.oid === null || stored.has(state.oid)) return;
    if ((fs.statSync(path.join(root, file), { throwIfNoEntry: false })?.size ?? 0) > storeUpTo)
      state.oid = null;
    else toStore.push(file);
  });
  if (toStore.length > 0) {
    const ids = await storeBlobs(
      root,
      toStore.map((file) => path.join(root, file)),
    );
    for (const file of toStore) {
      const state = saved.get(file);
      const oid = ids.get(path.join(root, file));
      if (state?.kind !== "file") continue;
      // Stored bytes are what restoration writes, even if the file moved on since the snapshot.
      state.oid = oid ?? null;
      if (oid !== undefined) stored.add(oid);
    }
  }
  return { before, saved };
}

/**
 * Diffs the tree against `checkpoint`, and undoes every change the boundary does not cover: created
 * paths are removed (with the folders they came in, once empty), renames moved back, modified and
 * deleted paths rewritten from their stored blobs (outside git they are only reported), a changed
 * executable bit set back. Changes inside the boundary stay. `onAfter` sees the snapshot taken
 * after the send before anything is undone; `keep` is given the added and modified paths about to be
 * undone, first, and what it keeps is named on their breaches. Resolves to one breach per undone
 * change, sorted by path.
 */
export async function settleInside(
  checkpoint: InsideCheckpoint,
  exclude: string[],
  judge: BoundaryJudge,
  onAfter?: (after: TreeSnapshot) => void,
  keep?: KeepCurrent,
): Promise<BoundaryBreach[]> {
  const { before } = checkpoint;
  const root = before.root;
  const after = await snapshotWorkingTree(root, { exclude });
  onAfter?.(after);
  const offending: { change: PathChange; rule: NonNullable<ReturnType<BoundaryJudge>> }[] = [];
  const changes = diffSnapshots(before, after);
  const contentChanged = new Set(
    changes.flatMap((c) => (c.previousPath ? [c.path, c.previousPath] : [c.path])),
  );
  const modes = before.git ? await restoreModeChanges(before, after, contentChanged, judge) : [];
  for (const change of changes) {
    // sssf's own output file, where its path could not be left out of the snapshot (no /proc).
    if (change.change !== "deleted" && isOwnOutputFile(path.join(root, change.path))) continue;
    const rule =
      change.change === "renamed"
        ? worseRule(judge(change.path), judge(change.previousPath ?? ""))
        : judge(change.path);
    if (rule !== null) offending.push({ change, rule });
  }
  if (offending.length === 0) return modes;

  const absolute = (file: string) => path.join(root, file);
  const kept = keep
    ? await keep(
        offending
          .filter(({ change }) => change.change === "added" || change.change === "modified")
          .map(({ change }) => change.path),
      )
    : new Map<string, KeptCopy | null>();
  // A file `keep` could not keep stays as it is: it may be someone else's.
  const unkept = (change: PathChange) => kept.get(change.path) === null;
  const UNKEPT = { restored: false, note: "sssf could not keep a copy of it: left as it is" };
  const clean = offending
    .filter(({ change }) => change.change === "modified" || change.change === "deleted")
    .map(({ change }) => change.path)
    .filter((file) => !before.entries.has(file));
  const fromHead = before.git ? await headStates(root, before.headCommit ?? null, clean) : new Map();
  const emptied: string[] = [];
  const breaches: BoundaryBreach[] = [...modes];
  const report = (
    change: PathChange,
    rule: BoundaryBreach["rule"],
    outcome: { restored: boolean; note?: string },
  ) =>
    breaches.push({
      path: change.path,
      change: change.change,
      ...(change.previousPath ? { previousPath: change.previousPath } : {}),
      rule,
      ...withKeptCopy(outcome, kept.get(change.path) ?? null),
    });

  // Removals and moves first, so a folder that replaced a file is gone before the file comes back.
  for (const { change, rule } of offending) {
    if (change.change === "added" && unkept(change)) {
      report(change, rule, UNKEPT);
    } else if (change.change === "added") {
      report(change, rule, await restorePath(absolute(change.path), { kind: "absent" }, async () => null));
      emptied.push(path.dirname(absolute(change.path)));
    } else if (change.change === "renamed" && change.previousPath) {
      report(change, rule, await moveBack(absolute(change.path), absolute(change.previousPath)));
      emptied.push(path.dirname(absolute(change.path)));
    }
  }
  const known = await knownDirs(before, ancestors(root, emptied));
  await removeEmptyDirs(
    emptied,
    root,
    (dir) => !known.has(path.relative(root, dir).split(path.sep).join("/")),
  );

  for (const { change, rule } of offending) {
    if (change.change !== "modified" && change.change !== "deleted") continue;
    if (!before.git) {
      report(change, rule, { restored: false, note: NO_GIT_NOTE });
      continue;
    }
    if (unkept(change)) {
      report(change, rule, UNKEPT);
      continue;
    }
    const saved =
      checkpoint.saved.get(change.path) ?? withListedMode(fromHead.get(change.path), before, change.path);
    const outcome = saved
      ? await restorePath(absolute(change.path), saved, (oid) => readBlob(root, oid))
      : { restored: false, note: "sssf has no record of its earlier state" };
    const copy = kept.get(change.path);
    if (!outcome.restored && copy?.movedTo) {
      // Nothing took its place: what it held goes back where it was.
      const back = await fs.promises.rename(copy.movedTo, absolute(change.path)).then(
        () => true,
        () => false,
      );
      if (back) kept.delete(change.path);
    }
    report(change, rule, outcome);
  }
  return breaches.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Keeps the current content of `files` (root-relative) before they are undone: resolves to where each
 * one's content went, or null for one it could not keep, which is then left as it is. Never rejects.
 */
export type KeepCurrent = (files: readonly string[]) => Promise<Map<string, KeptCopy | null>>;

/** A clean path's saved state, with the exact mode the snapshot listed when only its mode was dirty. */
function withListedMode(
  saved: SavedPath | undefined,
  before: TreeSnapshot,
  file: string,
): SavedPath | undefined {
  const mode = before.modes?.get(file);
  return saved?.kind === "file" && mode !== undefined ? { ...saved, mode: mode & 0o7777 } : saved;
}

/** Undoes a rename: the content is the same on both sides, so moving it back is exact. */
async function moveBack(from: string, to: string): Promise<{ restored: boolean; note?: string }> {
  try {
    await fs.promises.mkdir(path.dirname(to), { recursive: true });
    await fs.promises.rename(from, to);
    return { restored: true };
  } catch (error) {
    return { restored: false, note: (error as Error).message };
  }
}
