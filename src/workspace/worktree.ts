import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  forgetRepoFacts,
  parseRepoFacts,
  REPO_FACTS_ARGS,
  REPO_FACTS_LINES,
  type RepoFacts,
  rememberRepoFacts,
  repoFacts,
} from "../code/git-facts.js";
import { parsePorcelainV2 } from "../code/porcelain-v2.js";
import { gitLine, gitOrThrow, gitOutcome, type RetryOptions, retryTransient } from "./worktree-git.js";
import { withWorktreeLock } from "./worktree-lock.js";

/** Where a directory sits in git. */
export interface CheckoutInfo {
  /** Absolute top level of the work tree holding the directory. */
  topLevel: string;
  /** The directory relative to `topLevel`: "" or ending in "/" (as `git rev-parse --show-prefix` prints it). */
  prefix: string;
  /**
   * Absolute path of the git dir all of the repository's worktrees share (`<repo>/.git`): git's
   * `worktrees/` records and sssf's worktree lock live there.
   */
  commonDir: string;
  /** HEAD commit, or null in a repository without commits. */
  head: string | null;
  /** HEAD's branch (`main`), or null when HEAD is detached. */
  headBranch: string | null;
}

/** The local branches `inspectCheckout` lists besides: each ref `--glob` pattern names (`refs/heads/…`). */
export interface InspectOptions {
  /** Shell glob patterns of full ref names; a pattern without `*`, `?` or `[` names refs below it. */
  globs?: readonly string[];
}

/** `inspectCheckout`'s answer: the checkout, and the refs its `globs` matched (full names, in git's order). */
export type InspectedCheckout = CheckoutInfo & { refs: string[] };

/**
 * Null when git is missing or `dir` is not inside a git work tree. The repository's locations are
 * kept as the process's `repoFacts` of `dir` (and of its top level), so the run's later looks at them
 * spawn nothing. Never rejects.
 */
export async function inspectCheckout(
  dir: string,
  options: InspectOptions = {},
): Promise<InspectedCheckout | null> {
  const globs = (options.globs ?? []).map((glob) => `--glob=${glob}`);
  // One git process for everything, as a run pays for it; it fails in a repository without commits.
  const all = await gitOutcome(dir, [
    "rev-parse",
    ...REPO_FACTS_ARGS,
    "HEAD",
    "--symbolic-full-name",
    "HEAD",
    ...globs,
  ]);
  const lines = all.stdout.split("\n");
  const facts = all.ok ? parseRepoFacts(lines, dir) : null;
  if (facts !== null) {
    rememberRepoFacts(dir, facts);
    const [head = "", symbolic = ""] = lines.slice(REPO_FACTS_LINES);
    const headBranch = symbolic.startsWith("refs/heads/") ? symbolic.slice("refs/heads/".length) : null;
    const refs = lines.slice(REPO_FACTS_LINES + 2).filter((line) => line !== "");
    return { ...checkoutOf(facts), head, headBranch, refs };
  }
  const info = await gitOutcome(dir, ["rev-parse", ...REPO_FACTS_ARGS, "--symbolic-full-name", ...globs]);
  const known = info.ok ? parseRepoFacts(info.stdout.split("\n"), dir) : null;
  if (known === null) return null;
  rememberRepoFacts(dir, known);
  const refs = info.stdout
    .split("\n")
    .slice(REPO_FACTS_LINES)
    .filter((line) => line !== "");
  const symbolicRef = await gitLine(dir, ["symbolic-ref", "-q", "HEAD"]);
  const branch = symbolicRef?.startsWith("refs/heads/") ? symbolicRef.slice("refs/heads/".length) : null;
  return { ...checkoutOf(known), head: await resolveCommit(dir, "HEAD"), headBranch: branch, refs };
}

function checkoutOf(facts: RepoFacts): Pick<CheckoutInfo, "topLevel" | "prefix" | "commonDir"> {
  return { topLevel: facts.topLevel, prefix: facts.prefix, commonDir: facts.commonDir };
}

/** A repository as the worktree steps need it: where to run git, and where its worktree lock lives. */
export type GitRepo = Pick<CheckoutInfo, "topLevel" | "commonDir">;

/** The repository holding `dir` (any folder of a work tree), or null outside git (the process's `repoFacts`). Never rejects. */
export async function repoOf(dir: string): Promise<GitRepo | null> {
  const facts = await repoFacts(dir);
  return facts === null ? null : { topLevel: facts.topLevel, commonDir: facts.commonDir };
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
 * HEAD stay as they are. Runs under the repository's worktree lock; a transient failure (another git
 * process's half-written worktree record) is retried per `retry`, on the branch git already created
 * if it got that far. Rejects with a GitError carrying git's reason, or an SssfError naming the lock.
 */
export async function addWorktree(
  repo: GitRepo,
  worktree: string,
  branch: string,
  base: string,
  retry: RetryOptions = {},
): Promise<void> {
  mkdirSync(path.dirname(worktree), { recursive: true });
  await withWorktreeLock(repo.commonDir, () =>
    retryTransient(async (attempt) => {
      // `-b` creates the branch before git reads the other worktrees' records: a failed try can leave it.
      const created = attempt > 0 && (await resolveCommit(repo.topLevel, `refs/heads/${branch}`)) === base;
      const args = created ? ["--", worktree, branch] : ["-b", branch, "--", worktree, base];
      await gitOrThrow(repo.topLevel, ["worktree", "add", "--quiet", ...args]);
    }, retry),
  ).finally(() => forgetRepoFacts(worktree));
}

/**
 * Re-adds a worktree for an existing `branch` whose folder is gone (removed by `sssf clean` or by
 * hand): stale registrations are pruned first so git accepts the path again. Locked and retried like
 * `addWorktree`; rejects like it.
 */
export async function attachWorktree(
  repo: GitRepo,
  worktree: string,
  branch: string,
  retry: RetryOptions = {},
): Promise<void> {
  mkdirSync(path.dirname(worktree), { recursive: true });
  await withWorktreeLock(repo.commonDir, () =>
    retryTransient(async () => {
      await gitOrThrow(repo.topLevel, ["worktree", "prune"]);
      await gitOrThrow(repo.topLevel, ["worktree", "add", "--quiet", "--", worktree, branch]);
    }, retry),
  ).finally(() => forgetRepoFacts(worktree));
}

/**
 * Reconnects the worktree folder `worktree` with its record `record` (`<common dir>/worktrees/<name>`)
 * after the repository or the folder was moved or copied: the folder's `.git` file is pointed at the
 * record, then `git worktree repair` points the record back at the folder. Only this repository's
 * files are written (a copy's `.git` file may still name the original's record: git's repair alone
 * would follow it and rewrite the original). Locked like `attachWorktree`; rejects with a GitError.
 */
export async function repairWorktree(
  repo: GitRepo,
  worktree: string,
  record: string,
  retry: RetryOptions = {},
): Promise<void> {
  await withWorktreeLock(repo.commonDir, async () => {
    writeFileSync(path.join(worktree, ".git"), `gitdir: ${record}\n`);
    await retryTransient(() => gitOrThrow(repo.topLevel, ["worktree", "repair", "--", worktree]), retry);
  }).finally(() => forgetRepoFacts(worktree));
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

/**
 * Every worktree of the repository, the main one first. Reads under the worktree lock (so never a
 * record being written; without it when the repository is read-only), retrying transient failures
 * like `addWorktree`. Rejects with a GitError, or an SssfError naming the lock.
 */
export async function listWorktrees(repo: GitRepo, retry: RetryOptions = {}): Promise<WorktreeEntry[]> {
  // Newline-separated (not -z, which needs git 2.36): sssf's own worktree paths never hold a newline.
  const output = await withWorktreeLock(
    repo.commonDir,
    () => retryTransient(() => gitOrThrow(repo.topLevel, ["worktree", "list", "--porcelain"]), retry),
    { optional: true },
  );
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

/** What one `git status` says of a worktree. */
export interface WorktreeState {
  /** Paths with uncommitted changes (modified, staged or untracked; ignored files do not count), as git lists them. */
  paths: string[];
  /** The branch checked out there (`sssf/abc`), or null when HEAD is detached. */
  branch: string | null;
  /** The commit HEAD is at, or null when its branch has none (the branch does not exist). */
  head: string | null;
}

/**
 * A worktree's uncommitted paths, leaving out `ignore` (top-level names such as linked dependency
 * folders), and its HEAD, from one `git status --porcelain=v2 --branch`. Rejects with a GitError when
 * git cannot read the worktree.
 */
export async function worktreeState(
  worktree: string,
  ignore: readonly string[] = [],
): Promise<WorktreeState> {
  const output = await gitOrThrow(worktree, [
    "status",
    "--porcelain=v2",
    "--branch",
    "--no-ahead-behind",
    "-z",
    "--untracked-files=normal",
  ]);
  const status = parsePorcelainV2(output);
  const paths = status.entries.map((entry) => entry.path).filter((name) => !ignore.includes(name));
  return { paths, branch: status.branch, head: status.head };
}

/**
 * Paths with uncommitted changes in a worktree (modified, staged or untracked; ignored files do not
 * count), leaving out `ignore` (top-level names such as linked dependency folders). Rejects with
 * a GitError when git cannot read the worktree.
 */
export async function uncommittedPaths(worktree: string, ignore: readonly string[] = []): Promise<string[]> {
  return (await worktreeState(worktree, ignore)).paths;
}

/**
 * `git worktree remove` (with `--force` when asked: uncommitted changes are then lost), locked and
 * retried like `addWorktree`. Rejects like it.
 */
export async function removeWorktree(
  repo: GitRepo,
  worktree: string,
  force: boolean,
  retry: RetryOptions = {},
): Promise<void> {
  const args = ["worktree", "remove", ...(force ? ["--force"] : []), "--", worktree];
  await withWorktreeLock(repo.commonDir, () =>
    retryTransient(() => gitOrThrow(repo.topLevel, args), retry),
  ).finally(() => forgetRepoFacts(worktree));
}

/** Drops the records of worktrees whose folders are gone, locked and retried like `addWorktree`. Rejects like it. */
export async function pruneWorktrees(repo: GitRepo, retry: RetryOptions = {}): Promise<void> {
  await withWorktreeLock(repo.commonDir, () =>
    retryTransient(() => gitOrThrow(repo.topLevel, ["worktree", "prune"]), retry),
  );
}
