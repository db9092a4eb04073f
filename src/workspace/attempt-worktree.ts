/**
 * The worktrees of a best-of phase's attempts (docs/reliability.md, "Best-of-N"): each attempt works in
 * a worktree of its own, detached at the checkpoint of the run's worktree (its HEAD plus its
 * uncommitted state), with the checkout's dependency folders linked in as the run's worktree has them.
 * No branch is made, so removing the folder removes everything the attempt had.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { normalizeExcludes } from "../code/exclude-prefixes.js";
import { forgetRepoFacts } from "../code/git-facts.js";
import { runGit, runGitBytes } from "../code/run-git.js";
import { type GitRepo, pruneWorktrees, removeWorktree } from "./worktree.js";
import { gitOrThrow, retryTransient } from "./worktree-git.js";
import { linkDependencies, unlinkDependencies } from "./worktree-links.js";
import { withWorktreeLock } from "./worktree-lock.js";

/** What an attempt changed against the checkpoint. */
export interface AttemptChanges {
  /** `git diff --binary` of every non-ignored path outside sssf's own, against the checkpoint. */
  diff: Buffer;
  /** Lines added plus lines deleted (a binary file counts 0). */
  changedLines: number;
  /** Paths changed, relative to the worktree's top, sorted. */
  files: string[];
}

/**
 * Adds the worktree `root` detached at `commit` (a stale one left there by a killed run is removed
 * first) and links the checkout's dependency folders into it. Rejects with a GitError when git cannot.
 */
export async function addAttemptWorktree(
  repo: GitRepo,
  checkoutTop: string,
  commit: string,
  root: string,
): Promise<void> {
  if (existsSync(root)) await removeAttemptWorktree(repo, root);
  mkdirSync(path.dirname(root), { recursive: true });
  await withWorktreeLock(repo.commonDir, () =>
    retryTransient(() =>
      gitOrThrow(repo.topLevel, ["worktree", "add", "--quiet", "--detach", "--", root, commit]),
    ),
  );
  await linkDependencies(checkoutTop, root);
}

/** Removes an attempt's worktree, its links and git's record of it. Never rejects. */
export async function removeAttemptWorktree(repo: GitRepo, root: string): Promise<void> {
  unlinkDependencies(root);
  try {
    await removeWorktree(repo, root, true);
  } catch {
    // Git refused (a process still holds a file there, or the record is gone): by hand.
    rmSync(root, { recursive: true, force: true });
    await pruneWorktrees(repo).catch(() => {});
  }
  forgetRepoFacts(root);
}

/**
 * What the attempt in `root` changed against `base`: tracked and untracked files alike, ignored files
 * and `exclude` (prefixes relative to the worktree's top, or absolute under it) left out. Read through
 * a scratch index, so the attempt's own index is never written.
 */
export async function attemptChanges(
  root: string,
  base: string,
  exclude: readonly string[],
): Promise<AttemptChanges> {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-attempt-"));
  const env = { GIT_INDEX_FILE: path.join(dir, "index") };
  try {
    await runGit(root, ["read-tree", base], { env });
    const specs = [".", ...normalizeExcludes(root, exclude).map((p) => `:(top,exclude,literal)${p}`)];
    await runGit(root, ["add", "--all", "--", ...specs], { env });
    const diff = await runGitBytes(root, ["diff", "--cached", "--binary", "--no-renames", base], { env });
    const numstat = await runGit(root, ["diff", "--cached", "--numstat", "--no-renames", "-z", base], {
      env,
    });
    let changedLines = 0;
    const files: string[] = [];
    for (const entry of numstat.split("\0")) {
      const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(entry);
      if (!match) continue;
      changedLines += (match[1] === "-" ? 0 : Number(match[1])) + (match[2] === "-" ? 0 : Number(match[2]));
      files.push(match[3] ?? "");
    }
    return { diff, changedLines, files: files.sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Applies an attempt's diff (the file `diffFile`) to the working tree whose top level is `top`.
 *
 * Why a diff and not the attempt's tree: the run's worktree holds the checkpoint's state, and applying
 * the diff changes exactly the attempt's paths, leaves HEAD, the branch and the index alone, and is
 * refused whole (nothing written) when a path no longer matches what the attempt started from,
 * instead of silently overwriting it as a checkout of the tree would. Rejects with a GitError then.
 */
export async function applyAttemptDiff(top: string, diffFile: string): Promise<void> {
  await runGit(top, ["apply", "--binary", "--whitespace=nowarn", "--", diffFile]);
}

/** Writes `diff` to `file` (its folder made), for the session's record. */
export function writeAttemptDiff(file: string, diff: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, diff);
}
