/**
 * How far the base branch moved since a run started, and whether the run's work would still merge
 * into it: for a run the Merge panel does not cover (not accepted, so `sssf merge` refuses it before
 * looking). The base branch is the one the run recorded (`recordedInto`, as `sssf merge` reads it);
 * the work is the branch tip when the run committed, else the last tree its checkpoints recorded; the
 * conflict check is `sssf merge`'s own (`mergeTree`: `git merge-tree --write-tree`, git 2.38+).
 */
import { runGit } from "../../../code/run-git.js";
import type { SessionRow } from "../../../trace/events.js";
import type { TraceSql } from "../../../trace/store.js";
import { recordedInto } from "../../../workspace/land-run.js";
import { mergeTree } from "../../../workspace/merge-look.js";
import { repoOf, SAFE_REF } from "../changes-queries.js";
import { readPhaseChanges } from "./phase-trees.js";
import type { BaseDrift } from "./review-types.js";

const SHA = /^[0-9a-f]{40}$/;

/** Whether git can answer `merge-tree --write-tree` (2.38 or later). */
async function mergeTreeWorks(repo: string): Promise<{ ok: boolean; version: string }> {
  const version = (await runGit(repo, ["version"])).trim();
  const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  return { ok: major > 2 || (major === 2 && minor >= 38), version };
}

async function commitOf(repo: string, ref: string): Promise<string | null> {
  try {
    const sha = (await runGit(repo, ["rev-parse", "--verify", "-q", `${ref}^{commit}`])).trim();
    return SHA.test(sha) ? sha : null;
  } catch {
    return null;
  }
}

/** The commit holding the run's work: its branch tip when it committed, else its last recorded checkpoint tree. */
async function workOf(db: TraceSql, session: SessionRow, repo: string, base: string): Promise<string | null> {
  const tip = session.branch === null ? null : await commitOf(repo, `refs/heads/${session.branch}`);
  if (tip !== null && tip !== base) return tip;
  const { phases } = await readPhaseChanges(db, session);
  const last = phases.filter((p) => p.after !== null && p.changed !== null).at(-1);
  return last?.after ?? null;
}

/** The drift of `session`'s base; every "cannot tell" is the answer's `note`, never a rejection (but the database's). */
export async function readBaseDrift(db: TraceSql, session: SessionRow): Promise<BaseDrift> {
  const drift: BaseDrift = {
    base: null,
    base_ref: session.base_ref,
    base_tip: null,
    behind: null,
    conflicts: null,
    work: null,
    note: null,
  };
  const cannot = (note: string): BaseDrift => ({ ...drift, note });
  if (session.branch === null || session.base_ref === null || !SHA.test(session.base_ref))
    return cannot("the run worked in place: it has no base commit of its own");
  const repo = repoOf(session);
  if (repo === null) return cannot("the run's repository is gone");
  drift.base = await recordedInto(db, session.adw_id);
  if (drift.base === null || !SAFE_REF.test(drift.base) || drift.base.includes(".."))
    return cannot("the trace does not say which branch the run started from");
  drift.base_tip = await commitOf(repo, `refs/heads/${drift.base}`);
  if (drift.base_tip === null) return cannot(`branch ${drift.base} does not exist in ${repo}`);
  try {
    drift.behind = Number(
      (await runGit(repo, ["rev-list", "--count", `${session.base_ref}..${drift.base_tip}`, "--"])).trim(),
    );
  } catch {
    return cannot(`the run's base ${session.base_ref.slice(0, 12)} is not in ${repo}`);
  }
  drift.work = await workOf(db, session, repo, session.base_ref);
  if (drift.work === null) return cannot("the run recorded no work to merge (no commit, no checkpoint)");
  if (drift.behind === 0) return { ...drift, conflicts: [] };
  const git = await mergeTreeWorks(repo);
  if (!git.ok)
    return cannot(
      `${git.version} cannot tell whether it would conflict: git merge-tree --write-tree needs 2.38`,
    );
  try {
    return { ...drift, conflicts: (await mergeTree(repo, drift.base_tip, drift.work)).conflicts };
  } catch (error) {
    return cannot(`git cannot tell whether it would conflict: ${(error as Error).message}`);
  }
}
