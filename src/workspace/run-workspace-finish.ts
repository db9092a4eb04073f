import { existsSync } from "node:fs";
import path from "node:path";
import type { Run } from "../api/run-api.js";
import { isSssfError } from "../errors/sssf-error.js";
import type { RunWorkspace, WorkspaceVoice } from "./run-workspace.js";
import { mergeIfAccepted } from "./run-workspace-merge.js";
import { listPaths } from "./workspace-lines.js";
import { removeWorktree, repoOf, resolveCommit, type WorktreeState, worktreeState } from "./worktree.js";
import {
  type BranchCommits,
  branchCommits,
  checkoutStillHolds,
  commitsBetween,
  deleteBranchAt,
} from "./worktree-dirty.js";
import { LINKED_DEPENDENCIES, unlinkDependencies } from "./worktree-links.js";
import type { FastForwardResult } from "./worktree-merge.js";

/** What became of an accepted run's branch that holds no commit of the run's own. */
export type EmptyBranchOutcome = "removed" | "kept" | "has commits" | "none";

/**
 * The end of a worktree run, before its verdict is printed: `--merge` when it was accepted
 * (`mergeIfAccepted`), then, for an accepted (and, with `--merge`, merged) run whose branch holds no
 * commit of its own, the branch and its worktree are removed (`removeEmptyBranch`). A run that was not
 * accepted keeps both, for `sssf resume` or a rejoin. Never rejects; returns what `--merge` did and
 * what became of the branch.
 */
export async function finishWorkspace(
  run: Run,
  workspace: RunWorkspace,
  accepted: boolean,
  voice: WorkspaceVoice,
): Promise<{ merge: FastForwardResult | null; branch: EmptyBranchOutcome; commits: BranchLook }> {
  const merge = await mergeIfAccepted(run, workspace, accepted, voice);
  if (accepted && (merge === null || merge.merged)) {
    const { outcome, commits } = await removeEmptyBranch(workspace, voice);
    return { merge, branch: outcome, commits };
  }
  return { merge, branch: "none", commits: await lookAtBranch(workspace) };
}

/**
 * A worktree run's branch beyond its base as its end finds it (`missing`: gone), for its last lines and
 * its summary; null in place or when git cannot tell (they ask git themselves).
 */
export type BranchLook = BranchCommits | "missing" | null;

/** The branch's commits of a run that keeps its branch. Never rejects. */
async function lookAtBranch(workspace: RunWorkspace): Promise<BranchLook> {
  const { branch, baseRef } = workspace;
  if (workspace.mode !== "worktree" || branch === null || baseRef === null) return null;
  try {
    return (await branchCommits(workspace.checkout, baseRef, branch)) ?? "missing";
  } catch {
    return null;
  }
}

/**
 * Removes the branch and worktree of a run that committed nothing: no commit beyond the base but the
 * carry commit of `--carry-dirty` (and that one only while the checkout still holds those changes).
 * A worktree with uncommitted changes is kept with its branch, and says so; a branch is deleted only
 * while it still points where it was looked at. Traced; a refusal is said, never thrown. Returns what
 * became of the branch, and its commits as they were looked at (`missing` once removed; null unseen).
 */
export async function removeEmptyBranch(
  workspace: RunWorkspace,
  voice: WorkspaceVoice,
): Promise<{ outcome: EmptyBranchOutcome; commits: BranchLook }> {
  let commits: BranchLook = null;
  const outcome = await removeIfEmpty(workspace, voice, (seen) => {
    commits = seen;
  });
  return { outcome, commits: outcome === "removed" ? "missing" : commits };
}

async function removeIfEmpty(
  workspace: RunWorkspace,
  { trace, reporter }: WorkspaceVoice,
  seen: (commits: BranchCommits) => void,
): Promise<EmptyBranchOutcome> {
  const { branch, worktree, baseRef } = workspace;
  if (workspace.mode !== "worktree" || branch === null || worktree === null || baseRef === null)
    return "none";
  const say = (line: string, payload: Record<string, unknown>, loud: boolean) => {
    if (loud) reporter.log(line);
    trace.event({
      type: "log",
      name: line,
      phaseId: null,
      payload: { branch, worktree, base_ref: baseRef, ...payload, ...(loud ? { shown: [line] } : {}) },
    });
  };
  try {
    const repo = await repoOf(workspace.checkout);
    if (repo === null) return "none";
    // One `git status` of the worktree: what is uncommitted there and, while the worktree still has
    // the branch checked out, where the branch points (an agent may have switched: then the ref is read).
    const look = existsSync(worktree) ? await readWorktree(worktree) : null;
    const tip =
      look?.state?.branch === branch
        ? look.state.head
        : await resolveCommit(repo.topLevel, `refs/heads/${branch}`);
    if (tip === null) return "none";
    const commits = await commitsBetween(repo.topLevel, baseRef, tip);
    seen(commits);
    if (commits.own.length > 0) return "has commits";
    const [carry] = commits.carried;
    if (carry !== undefined && !(await checkoutStillHolds(repo, carry, workspace.ownPaths))) {
      say(
        `branch ${branch} kept: it holds only the changes carried from the checkout, and the checkout no longer has them as they were`,
        { carried: commits.carried },
        true,
      );
      return "kept";
    }
    // Unreadable, it fails here, where its uncommitted paths are asked for.
    if (look?.state === null) throw look.error;
    const dirty = look?.state.paths ?? [];
    if (dirty.length > 0) {
      say(
        `no commits, but ${dirty.length} uncommitted change${dirty.length === 1 ? "" : "s"} in the worktree (${listPaths(dirty)}): branch ${branch} and its worktree kept`,
        { uncommitted: dirty },
        true,
      );
      return "kept";
    }
    if (existsSync(worktree)) {
      unlinkDependencies(worktree);
      // The status above is the check git would repeat in a process of its own: clean, it need not.
      // A worktree with submodules is left to git's own refusal.
      const checked = look !== null && !existsSync(path.join(worktree, ".gitmodules"));
      await removeWorktree(repo, worktree, checked);
    }
    // Only while the branch still points where its commits were counted: a commit landing meanwhile keeps it.
    await deleteBranchAt(repo.topLevel, branch, tip);
    // The terminal's last lines say it ("no commits; branch … removed"): traced only.
    say(`no commits: branch ${branch} and its worktree removed`, { carried: commits.carried, tip }, false);
    return "removed";
  } catch (error) {
    if (!isSssfError(error)) throw error;
    say(`branch ${branch} has no commits but was kept: ${error.message}`, { error: error.message }, true);
    return "kept";
  }
}

/** The worktree's `worktreeState`, or why git could not read it. Never rejects. */
async function readWorktree(
  worktree: string,
): Promise<{ state: WorktreeState; error?: never } | { state: null; error: unknown }> {
  try {
    return { state: await worktreeState(worktree, LINKED_DEPENDENCIES) };
  } catch (error) {
    return { state: null, error };
  }
}
