/**
 * The operator's uncommitted work, which a new worktree (started at a commit) does not have: what it
 * is (`checkoutChanges`), and carrying it into a worktree as sssf's own commit (`carryChanges`). The
 * checkout is only read: its files, its index and its refs stay exactly as they were.
 */
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runGit, runGitSync } from "../code/run-git.js";
import { GitError } from "../errors/git-error.js";
import type { CheckoutInfo } from "./worktree.js";
import { gitOrThrow, gitOutcome } from "./worktree-git.js";

/** The subject of the commit holding what `--carry-dirty` brought in; never the agents' work. */
export const CARRY_SUBJECT = "sssf: carry uncommitted changes from the checkout";

/** Who the carry commit is by: sssf, so neither the agents nor the operator are credited with it. */
const CARRY_IDENTITY = {
  GIT_AUTHOR_NAME: "sssf",
  GIT_AUTHOR_EMAIL: "sssf@localhost",
  GIT_COMMITTER_NAME: "sssf",
  GIT_COMMITTER_EMAIL: "sssf@localhost",
};

/** Uncommitted paths of a checkout (relative to its top level, as git prints them), by kind. */
export interface CheckoutChanges {
  /** Every path below, once, sorted (a rename's old path included). */
  files: string[];
  /** Changed in the working tree against the index (unmerged paths too). */
  modified: string[];
  /** Staged: the index differs from HEAD. */
  staged: string[];
  /** Deleted in the index or the working tree, and the old side of a staged rename. */
  deleted: string[];
  /** Untracked and not ignored (a nested repository is one entry ending in "/"). */
  untracked: string[];
  /** Deleted in the index (`git rm`): a copy of the index has that already, and git cannot stage the path. */
  removedFromIndex: string[];
}

/** True when `file` is `prefix` or lies under it. */
function under(file: string, prefix: string): boolean {
  return file === prefix || file.startsWith(`${prefix}/`);
}

/**
 * The checkout's uncommitted changes: modified, staged, deleted and untracked files, never ignored
 * ones, leaving out paths under `exclude` (sssf's own data dir, relative to the top level). Read with
 * `git status -z`, so names with spaces, quotes, newlines or any UTF-8 come through unquoted; the
 * index is not refreshed (`GIT_OPTIONAL_LOCKS=0`). Rejects with a GitError when git cannot read it.
 */
export async function checkoutChanges(
  git: Pick<CheckoutInfo, "topLevel">,
  exclude: readonly string[] = [],
): Promise<CheckoutChanges> {
  const output = await gitOrThrow(git.topLevel, [
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--no-renames",
  ]);
  const sets = {
    modified: new Set<string>(),
    staged: new Set<string>(),
    deleted: new Set<string>(),
    untracked: new Set<string>(),
    removedFromIndex: new Set<string>(),
  };
  const fields = output.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? "";
    if (field.length < 4) continue;
    const x = field[0] ?? " ";
    const y = field[1] ?? " ";
    const file = field.slice(3);
    // `--no-renames` makes renames an add and a delete; a copy (from an older git) still has two paths.
    const from = /[RC]/.test(x + y) ? (fields[++i] ?? "") : "";
    if (exclude.some((prefix) => under(file, prefix))) continue;
    if (x === "?" && y === "?") {
      sets.untracked.add(file);
      continue;
    }
    if (x === "!") continue;
    const unmerged = x === "U" || y === "U" || (x === y && (x === "A" || x === "D"));
    if (unmerged || y === "M" || y === "T") sets.modified.add(file);
    if (!unmerged && x !== " ") sets.staged.add(file);
    if (!unmerged && (x === "D" || y === "D")) sets.deleted.add(file);
    if (!unmerged && x === "D") sets.removedFromIndex.add(file);
    if (x === "R" && from !== "") sets.deleted.add(from);
  }
  const sorted = (set: Set<string>) => [...set].sort();
  const files = new Set([...sets.modified, ...sets.staged, ...sets.deleted, ...sets.untracked]);
  return {
    files: sorted(files),
    modified: sorted(sets.modified),
    staged: sorted(sets.staged),
    deleted: sorted(sets.deleted),
    untracked: sorted(sets.untracked),
    removedFromIndex: sorted(sets.removedFromIndex),
  };
}

/** What `carryChanges` put into the worktree. */
export interface CarriedChanges {
  /** The carry commit on the run's branch (parent: the base), authored by sssf. */
  commit: string;
  /** The paths it changed, as `git diff --name-only` lists them against the base. */
  files: string[];
  /** Untracked nested repositories left out (git would record them as bare gitlinks). */
  skipped: string[];
}

/** `gitOrThrow` with stdin: the NUL-separated pathspecs of `paths`. */
function gitWithPaths(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  paths: readonly string[],
): Promise<string> {
  return runGit(cwd, args, { env, input: `${paths.join("\0")}\0` });
}

/**
 * The tree of the checkout as the operator sees it: a copy of its index (the original is never
 * written) with `paths` staged from the working tree, in a private index file. Resolves to the tree
 * id; rejects with a GitError.
 */
export async function checkoutTree(
  git: Pick<CheckoutInfo, "topLevel">,
  paths: readonly string[],
): Promise<string> {
  const top = git.topLevel;
  const indexFile = path.join(tmpdir(), `sssf-carry-${process.pid}-${randomBytes(4).toString("hex")}`);
  const env = { GIT_INDEX_FILE: indexFile, GIT_LITERAL_PATHSPECS: "1" };
  try {
    const own = (
      await gitOrThrow(top, ["rev-parse", "--path-format=absolute", "--git-path", "index"])
    ).trim();
    if (existsSync(own)) copyFileSync(own, indexFile);
    else await gitOrThrow(top, ["read-tree", "HEAD"], env);
    if (paths.length > 0)
      await gitWithPaths(top, ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"], env, paths);
    return (await gitOrThrow(top, ["write-tree"], env)).trim();
  } finally {
    rmSync(indexFile, { force: true });
    rmSync(`${indexFile}.lock`, { force: true });
  }
}

/** The paths `carryChanges` stages: every changed file but untracked nested repositories. */
function carriedPaths(changes: CheckoutChanges): { paths: string[]; skipped: string[] } {
  const skipped = changes.untracked.filter((file) => file.endsWith("/"));
  // A path `git rm` took out of the index is in the working tree again only when it is untracked too.
  const gone = new Set(changes.removedFromIndex.filter((file) => !changes.untracked.includes(file)));
  return { paths: changes.files.filter((file) => !file.endsWith("/") && !gone.has(file)), skipped };
}

/**
 * Carries the checkout's uncommitted `changes` into the fresh `worktree` (on its new branch at `base`,
 * which must be the checkout's HEAD): the checkout's tree as the operator sees it (tracked edits,
 * staged changes, deletions, untracked non-ignored files) becomes one commit `CARRY_SUBJECT` by sssf
 * on top of `base`, and the worktree is reset to it. The run's own commits then hold only the run's
 * changes. The checkout is only read. Null when the checkout's tree equals the base's (nothing to
 * carry). Rejects with a GitError.
 */
export async function carryChanges(
  git: Pick<CheckoutInfo, "topLevel">,
  worktree: string,
  base: string,
  changes: CheckoutChanges,
  about: { adwId: string; checkout: string },
): Promise<CarriedChanges | null> {
  const { paths, skipped } = carriedPaths(changes);
  const tree = await checkoutTree(git, paths);
  const baseTree = (await gitOrThrow(git.topLevel, ["rev-parse", `${base}^{tree}`])).trim();
  if (tree === baseTree) return null;
  const message =
    `${CARRY_SUBJECT}\n\n` +
    `The uncommitted changes of ${about.checkout} when run ${about.adwId} started, carried in by\n` +
    "--carry-dirty. They are the run's starting point, not its work: the run's own commits follow.\n";
  const commit = (
    await runGit(git.topLevel, ["commit-tree", tree, "-p", base, "-F", "-"], {
      env: CARRY_IDENTITY,
      input: message,
    })
  ).trim();
  // A fresh worktree at `base`: the reset moves its branch to the carry commit and writes its files.
  await gitOrThrow(worktree, ["reset", "--hard", "--quiet", commit]);
  const names = await gitOrThrow(git.topLevel, ["diff", "--name-only", "-z", "--no-renames", base, commit]);
  return { commit, files: names.split("\0").filter((name) => name !== ""), skipped };
}

/**
 * Whether the checkout still holds exactly what was carried as `carryCommit`: the same tree with the
 * same uncommitted paths. A branch holding only the carry commit may go then, its changes being in the
 * checkout still. False when git cannot tell.
 */
export async function checkoutStillHolds(
  git: Pick<CheckoutInfo, "topLevel">,
  carryCommit: string,
  exclude: readonly string[],
): Promise<boolean> {
  try {
    const now = await checkoutChanges(git, exclude);
    const tree = await checkoutTree(git, carriedPaths(now).paths);
    const carried = (await gitOrThrow(git.topLevel, ["rev-parse", `${carryCommit}^{tree}`])).trim();
    return tree === carried;
  } catch (error) {
    if (error instanceof GitError) return false;
    throw error;
  }
}

/** The commits of `base..branch`: the run's own, and the carry commits (`CARRY_SUBJECT` by sssf). */
export interface BranchCommits {
  own: string[];
  carried: string[];
  /** Every one of them with its subject, oldest first. */
  log: { sha: string; subject: string }[];
}

function splitCommits(log: string): BranchCommits {
  const commits: BranchCommits = { own: [], carried: [], log: [] };
  for (const line of log.split("\n")) {
    if (line === "") continue;
    const [sha = "", author = "", subject = ""] = line.split("\0");
    if (author === "sssf" && subject === CARRY_SUBJECT) commits.carried.push(sha);
    else commits.own.push(sha);
    commits.log.push({ sha, subject });
  }
  // git log lists the newest first.
  commits.log.reverse();
  return commits;
}

const LOG_FORMAT = "--format=%H%x00%an%x00%s";

/** The commits `branch` has beyond `base`; null when the branch does not exist. Rejects with a GitError otherwise. */
export async function branchCommits(
  dir: string,
  base: string,
  branch: string,
): Promise<BranchCommits | null> {
  const ref = `refs/heads/${branch}`;
  if (!(await gitOutcome(dir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])).ok) return null;
  return commitsBetween(dir, base, ref);
}

/**
 * The commits `tip` (a commit, or a ref naming one) has beyond `base`; none, without asking git, when
 * `tip` is `base` itself. Rejects with a GitError when git cannot tell.
 */
export async function commitsBetween(dir: string, base: string, tip: string): Promise<BranchCommits> {
  if (tip === base) return { own: [], carried: [], log: [] };
  return splitCommits(await gitOrThrow(dir, ["log", LOG_FORMAT, `${base}..${tip}`, "--"]));
}

/**
 * `branchCommits` for the terminal's last lines, synchronously: `missing` when the branch is gone,
 * null when git cannot tell (no repository there, git missing). Never throws.
 */
export function branchCommitsSync(
  dir: string,
  base: string,
  branch: string,
): BranchCommits | "missing" | null {
  const ref = `refs/heads/${branch}`;
  try {
    runGitSync(dir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch (error) {
    // `--verify --quiet` exits 1 for a ref that does not exist; 128 outside a repository.
    return error instanceof GitError && error.gitExitCode === 1 ? "missing" : null;
  }
  try {
    return splitCommits(runGitSync(dir, ["log", LOG_FORMAT, `${base}..${ref}`, "--"]));
  } catch {
    return null;
  }
}

/**
 * Deletes the local `branch` only while it still points at `tip` (`update-ref -d` with the old value),
 * so a commit that lands meanwhile keeps it. Rejects with a GitError when git refuses.
 */
export async function deleteBranchAt(dir: string, branch: string, tip: string): Promise<void> {
  await gitOrThrow(dir, [
    "update-ref",
    "-m",
    "sssf: remove a run branch without commits",
    "-d",
    `refs/heads/${branch}`,
    tip,
  ]);
}
