/**
 * Mode changes a content diff cannot see: `chmod +x` of a tracked or untracked file leaves its blob id
 * alone. Git reports the executable bit (`core.fileMode`, on by default), so that is what is compared:
 * a file `git status` lists has its exact mode in the snapshot; a clean one has its commit's.
 */

import fs from "node:fs";
import path from "node:path";
import type { TreeSnapshot } from "../code/working-tree.js";
import { treeEntriesAt } from "./blob-store.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import type { BoundaryJudge } from "./write-boundary-rules.js";

const REGULAR = 0o100000;
const TYPE = 0o170000;
const OWNER_EXEC = 0o100;

function isRegular(mode: number | undefined): mode is number {
  return mode !== undefined && (mode & TYPE) === REGULAR;
}

function headMode(mode: string | undefined): number | undefined {
  if (mode === "100755") return REGULAR | 0o755;
  if (mode === "100644") return REGULAR | 0o644;
  return undefined;
}

async function headModes(root: string, commit: string | null | undefined, files: string[]) {
  const entries = await treeEntriesAt(root, commit ?? null, files);
  return (file: string) => headMode(entries.get(file)?.mode);
}

/** `mode` with its executable bits set (where it is readable) or cleared, as git checks a file out. */
function withExec(mode: number, exec: boolean): number {
  return exec ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
}

/**
 * Restores the executable bit of every file whose bit changed between `before` and `after` while its
 * content did not (`contentChanged` holds both sides of every content change), where `judge` says the
 * path is outside the boundary. A file listed before gets its exact earlier mode back; a clean one
 * gets its bits set or cleared as git would. Resolves to one breach each, sorted by path.
 */
export async function restoreModeChanges(
  before: TreeSnapshot,
  after: TreeSnapshot,
  contentChanged: ReadonlySet<string>,
  judge: BoundaryJudge,
): Promise<BoundaryBreach[]> {
  const was = before.modes ?? new Map<string, number>();
  const now = after.modes ?? new Map<string, number>();
  const candidates = [...new Set([...was.keys(), ...now.keys()])]
    .filter((file) => !contentChanged.has(file))
    .sort();
  if (candidates.length === 0) return [];
  const headBefore = await headModes(
    before.root,
    before.headCommit,
    candidates.filter((file) => !was.has(file)),
  );
  const headAfter =
    before.headCommit === after.headCommit
      ? headBefore
      : await headModes(
          after.root,
          after.headCommit,
          candidates.filter((file) => !now.has(file)),
        );
  const breaches: BoundaryBreach[] = [];
  for (const file of candidates) {
    const from = was.get(file) ?? headBefore(file);
    const to = now.get(file) ?? headAfter(file);
    if (!isRegular(from) || !isRegular(to)) continue;
    const exec = (from & OWNER_EXEC) !== 0;
    if (exec === ((to & OWNER_EXEC) !== 0)) continue;
    // Judged only once changed: a judge may record what the agent kept.
    const rule = judge(file);
    if (rule === null) continue;
    const absolute = path.join(after.root, file);
    try {
      const current = fs.lstatSync(absolute).mode & 0o7777;
      const target = was.has(file) ? from & 0o7777 : withExec(current, exec);
      fs.chmodSync(absolute, target);
      const note = `its mode changed from ${target.toString(8)} to ${current.toString(8)}`;
      breaches.push({ path: file, change: "modified", rule, restored: true, note });
    } catch (error) {
      breaches.push({
        path: file,
        change: "modified",
        rule,
        restored: false,
        note: (error as Error).message,
      });
    }
  }
  return breaches;
}
