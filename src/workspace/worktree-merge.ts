import { realpathSync } from "node:fs";
import { withCheckoutWrite } from "./checkout-lock.js";
import { listWorktrees, repoOf, resolveCommit, type WorktreeEntry } from "./worktree.js";
import { gitOutcome } from "./worktree-git.js";
import { withWorktreeLock } from "./worktree-lock.js";

/** What `fastForward` is asked to do. */
export interface FastForwardRequest {
  /** The operator's checkout (any folder of its work tree). */
  checkout: string;
  /** The local branch to move (`main`). */
  base: string;
  /** The branch holding the run's commits (`sssf/<workflow>/<adw_id>`). */
  branch: string;
  /** The commit to reach instead of the branch's tip (the merge commit `sssf merge` made); default the tip. */
  target?: string;
}

/** What `fastForward` did. */
export interface FastForwardResult {
  merged: boolean;
  /** `merge`: `git merge --ff-only` in the checkout; `update-ref`: the ref moved; `none`: nothing to move. */
  method: "merge" | "update-ref" | "none";
  /** The base branch's commit before, and the one it was asked to reach. */
  from: string | null;
  to: string | null;
  /** One line: what happened, or git's reason for refusing. */
  reason: string;
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

/**
 * Fast-forwards the local branch `base` to `branch`, never anything else. When `base` is checked out in
 * the checkout, `git merge --ff-only` runs there (git refuses rather than overwrite local changes); when
 * it is checked out in another worktree, sssf refuses; otherwise the ref moves with `git update-ref`,
 * guarded by its old value, after checking it is an ancestor. The worktree list and the merge run under
 * the worktree lock, the merge also as the checkout's writer (`withCheckoutWrite`); when the list
 * cannot be read (git failed, the lock stayed held) nothing moves. Never rejects: a refusal is
 * `merged: false` with the reason.
 */
export async function fastForward(request: FastForwardRequest): Promise<FastForwardResult> {
  const { checkout, base, branch } = request;
  const to = request.target ?? (await resolveCommit(checkout, `refs/heads/${branch}`));
  const from = await resolveCommit(checkout, `refs/heads/${base}`);
  const refused = (reason: string): FastForwardResult => ({
    merged: false,
    method: "none",
    from,
    to,
    reason,
  });
  if (to === null) return refused(`branch ${branch} does not exist`);
  if (from === null) return refused(`branch ${base} does not exist`);
  if (from === to)
    return { merged: true, method: "none", from, to, reason: `${base} is already at ${branch}` };

  const repo = await repoOf(checkout);
  if (repo === null) return refused(`${checkout} is not a git work tree`);
  const top = repo.topLevel;
  let worktrees: WorktreeEntry[];
  try {
    worktrees = await listWorktrees(repo);
  } catch (error) {
    // Without the list sssf cannot tell where base is checked out, so it moves nothing.
    return refused(`cannot tell where ${base} is checked out: ${oneLine((error as Error).message)}`);
  }
  const holder = worktrees.find((entry) => entry.branch === base);
  if (holder && !samePath(holder.path, top)) {
    return refused(`${base} is checked out in the worktree ${holder.path}: fast-forward it there`);
  }
  if (holder) {
    // Under the worktree lock (the merge's automatic maintenance may prune worktree records) and as
    // the checkout's writer (no write boundary snapshots it half merged).
    const merge = await withWorktreeLock(repo.commonDir, () =>
      withCheckoutWrite(repo.commonDir, () =>
        gitOutcome(top, ["merge", "--ff-only", "--quiet", request.target ?? `refs/heads/${branch}`]),
      ),
    ).catch((error: Error) => ({ ok: false, stdout: "", stderr: error.message }));
    if (!merge.ok) return refused(`git merge --ff-only refused: ${oneLine(merge.stderr)}`);
    return {
      merged: true,
      method: "merge",
      from,
      to,
      reason: `${base} fast-forwarded to ${branch} in ${top}`,
    };
  }
  const ancestor = await gitOutcome(top, ["merge-base", "--is-ancestor", from, to]);
  if (!ancestor.ok) {
    return refused(
      `${base} (${from.slice(0, 12)}) is not an ancestor of ${branch}: it moved since the run started`,
    );
  }
  const update = await gitOutcome(top, [
    "update-ref",
    "-m",
    `sssf: fast-forward ${base} to ${branch}`,
    `refs/heads/${base}`,
    to,
    from,
  ]);
  if (!update.ok) return refused(`git update-ref refused: ${oneLine(update.stderr)}`);
  return { merged: true, method: "update-ref", from, to, reason: `${base} fast-forwarded to ${branch}` };
}

/** Git's multi-line reason as one line (file lists joined), bounded. */
function oneLine(text: string): string {
  const joined = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
  return joined.length > 600 ? `${joined.slice(0, 597)}...` : joined;
}
