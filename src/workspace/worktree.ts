import { mkdirSync } from "node:fs";
import path from "node:path";
import { gitLine, gitOrThrow, gitOutcome } from "./worktree-git.js";

/** Where a directory sits in git. */
export interface CheckoutInfo {
  /** Absolute top level of the work tree holding the directory. */
  topLevel: string;
  /** The directory relative to `topLevel`: "" or ending in "/" (as `git rev-parse --show-prefix` prints it). */
  prefix: string;
  /** HEAD commit, or null in a repository without commits. */
  head: string | null;
  /** HEAD's branch (`main`), or null when HEAD is detached. */
  headBranch: string | null;
}

/** Null when git is missing or `dir` is not inside a git work tree. Never rejects. */
export async function inspectCheckout(dir: string): Promise<CheckoutInfo | null> {
  // One git process for everything, as a run pays for it; it fails in a repository without commits.
  const all = await gitOutcome(dir, [
    "rev-parse",
    "--is-inside-work-tree",
    "--show-toplevel",
    "--show-prefix",
    "HEAD",
    "--symbolic-full-name",
    "HEAD",
  ]);
  const [inside, topLevel = "", prefix = "", head = "", symbolic = ""] = all.stdout.split("\n");
  if (all.ok && inside === "true" && topLevel !== "") {
    const headBranch = symbolic.startsWith("refs/heads/") ? symbolic.slice("refs/heads/".length) : null;
    return { topLevel, prefix, head, headBranch };
  }
  const info = await gitOutcome(dir, [
    "rev-parse",
    "--is-inside-work-tree",
    "--show-toplevel",
    "--show-prefix",
  ]);
  const [isInside, top = "", subPrefix = ""] = info.stdout.split("\n");
  if (!info.ok || isInside !== "true" || top === "") return null;
  const symbolicRef = await gitLine(dir, ["symbolic-ref", "-q", "HEAD"]);
  const branch = symbolicRef?.startsWith("refs/heads/") ? symbolicRef.slice("refs/heads/".length) : null;
  return { topLevel: top, prefix: subPrefix, head: await resolveCommit(dir, "HEAD"), headBranch: branch };
}

/** The commit `ref` (any commit-ish) names, or null when it names none. Never rejects. */
export function resolveCommit(dir: string, ref: string): Promise<string | null> {
  // `--end-of-options` keeps a ref starting with "-" from being read as a flag.
  return gitLine(dir, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
}

/** The local branch `ref` names (`main` for "main" or "heads/main"), or null for tags, commits and remotes. */
export async function localBranchOf(dir: string, ref: string): Promise<string | null> {
  // `--end-of-options` would be echoed here (git 2.39); a ref cannot start with "-" anyway.
  if (ref.startsWith("-")) return null;
  const full = await gitLine(dir, ["rev-parse", "--symbolic-full-name", ref]);
  return full?.startsWith("refs/heads/") ? full.slice("refs/heads/".length) : null;
}

/** True when the local branch exists. Never rejects. */
export async function branchExists(dir: string, branch: string): Promise<boolean> {
  return (await gitOutcome(dir, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`])).ok;
}

/**
 * Adds a worktree at `worktree` on a new branch `branch` starting at `base` (a commit id). Only the
 * repository's shared data changes (the branch, `.git/worktrees/`): the checkout's files, index and
 * HEAD stay as they are. Rejects with a GitError carrying git's reason.
 */
export async function addWorktree(
  checkout: string,
  worktree: string,
  branch: string,
  base: string,
): Promise<void> {
  mkdirSync(path.dirname(worktree), { recursive: true });
  await gitOrThrow(checkout, ["worktree", "add", "--quiet", "-b", branch, "--", worktree, base]);
}

/**
 * Re-adds a worktree for an existing `branch` whose folder is gone (removed by `sssf clean` or by
 * hand): stale registrations are pruned first so git accepts the path again. Rejects like `addWorktree`.
 */
export async function attachWorktree(checkout: string, worktree: string, branch: string): Promise<void> {
  mkdirSync(path.dirname(worktree), { recursive: true });
  await gitOrThrow(checkout, ["worktree", "prune"]);
  await gitOrThrow(checkout, ["worktree", "add", "--quiet", "--", worktree, branch]);
}

/** One entry of `git worktree list`. */
export interface WorktreeEntry {
  path: string;
  head: string | null;
  /** The checked-out branch (`sssf/abc`), or null when detached. */
  branch: string | null;
  /** Its folder is gone: `git worktree prune` would drop it. */
  prunable: boolean;
}

/** Every worktree of the repository, the main one first. Rejects with a GitError. */
export async function listWorktrees(checkout: string): Promise<WorktreeEntry[]> {
  // Newline-separated (not -z, which needs git 2.36): sssf's own worktree paths never hold a newline.
  const output = await gitOrThrow(checkout, ["worktree", "list", "--porcelain"]);
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const field of output.split("\n")) {
    if (field.startsWith("worktree ")) {
      current = { path: field.slice("worktree ".length), head: null, branch: null, prunable: false };
      entries.push(current);
    } else if (current && field.startsWith("HEAD ")) current.head = field.slice(5);
    else if (current && field.startsWith("branch refs/heads/")) current.branch = field.slice(18);
    else if (current && (field === "prunable" || field.startsWith("prunable "))) current.prunable = true;
  }
  return entries;
}

/**
 * Paths with uncommitted changes in a worktree (modified, staged or untracked; ignored files do not
 * count), leaving out `ignore` (top-level names such as linked dependency folders). Rejects with
 * a GitError when git cannot read the worktree.
 */
export async function uncommittedPaths(worktree: string, ignore: readonly string[] = []): Promise<string[]> {
  const output = await gitOrThrow(worktree, ["status", "--porcelain=v1", "-z", "--untracked-files=normal"]);
  const paths: string[] = [];
  const fields = output.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? "";
    if (field.length < 4) continue;
    if (/[RC]/.test(field.slice(0, 2))) i++;
    const file = field.slice(3).replace(/\/$/, "");
    if (!ignore.includes(file)) paths.push(file);
  }
  return paths;
}

/** `git worktree remove` (with `--force` when asked: uncommitted changes are then lost). Rejects like `addWorktree`. */
export async function removeWorktree(checkout: string, worktree: string, force: boolean): Promise<void> {
  await gitOrThrow(checkout, ["worktree", "remove", ...(force ? ["--force"] : []), "--", worktree]);
}

/** Drops the records of worktrees whose folders are gone. Rejects like `addWorktree`. */
export async function pruneWorktrees(checkout: string): Promise<void> {
  await gitOrThrow(checkout, ["worktree", "prune"]);
}
