import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { forgetRepoFacts } from "../code/git-facts.js";
import { type GitRepo, pruneWorktrees, removeWorktree } from "./worktree.js";
import { gitOrThrow, retryTransient } from "./worktree-git.js";
import { linkDependencies, unlinkDependencies } from "./worktree-links.js";
import { withWorktreeLock } from "./worktree-lock.js";

/** A throwaway worktree at one commit, as `withDetachedWorktree` hands it to its body. */
export interface DetachedWorktree {
  /** The worktree's top level. */
  root: string;
  /** The commit checked out (detached HEAD). */
  commit: string;
}

/**
 * Adds a worktree with a detached HEAD at `commit` in a new folder under `parent`, links the
 * checkout's ignored dependency folders into it (`node_modules`, as a run's worktree gets them), runs
 * `body`, and removes the worktree again whatever `body` did (with `--force`: what the body wrote
 * there is thrown away). Adding and removing take the repository's worktree lock. No branch is made.
 * Rejects with a GitError when git cannot add the worktree, or with what `body` rejects with.
 * @example const result = await withDetachedWorktree(repo, base, tmp, (tree) => runSuiteAt(config, "test", tree.root));
 */
export async function withDetachedWorktree<T>(
  repo: GitRepo,
  commit: string,
  parent: string,
  body: (worktree: DetachedWorktree) => Promise<T>,
): Promise<T> {
  mkdirSync(parent, { recursive: true });
  const root = path.join(parent, `${commit.slice(0, 12)}-${randomBytes(4).toString("hex")}`);
  await withWorktreeLock(repo.commonDir, () =>
    retryTransient(() =>
      gitOrThrow(repo.topLevel, ["worktree", "add", "--quiet", "--detach", "--", root, commit]),
    ),
  );
  try {
    await linkDependencies(repo.topLevel, root);
    return await body({ root, commit });
  } finally {
    unlinkDependencies(root);
    try {
      await removeWorktree(repo, root, true);
    } catch {
      // Git refused (a process still holds a file there): drop the folder and its record by hand.
      rmSync(root, { recursive: true, force: true });
      forgetRepoFacts(root);
      await pruneWorktrees(repo).catch(() => {});
    }
  }
}
