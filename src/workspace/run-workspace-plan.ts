import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import type { SssfConfig } from "../config/config-types.js";
import { SssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import type { SessionRow } from "../trace/events.js";
import {
  branchExists,
  type CheckoutInfo,
  inspectCheckout,
  listWorktrees,
  localBranchOf,
  resolveCommit,
} from "./worktree.js";

/** What the command line asked for, and the session being rejoined (if any). */
export interface WorkspaceRequest {
  config: SssfConfig;
  adwId: string;
  /** `--in-place`: work in the checkout itself. */
  inPlace: boolean;
  /** `--base REF`: where a new branch starts (default HEAD). */
  base: string | undefined;
  /** `--merge`: fast-forward the base branch when the run is accepted. */
  merge: boolean;
  existing: SessionRow | undefined;
}

/** Where a run will work, decided before anything is created. */
export interface WorkspacePlan {
  /** `create`: a new worktree and branch; `reuse`/`recreate`: a rejoin's own worktree (re-added from its branch). */
  action: "in-place" | "create" | "reuse" | "recreate";
  /** The operator's checkout the run was started from (`config.repoRoot`). */
  checkout: string;
  /** Git facts of the checkout; null outside git. */
  git: CheckoutInfo | null;
  worktree: string | null;
  branch: string | null;
  baseRef: string | null;
  /** The local branch `--merge` fast-forwards, or null without `--merge`. */
  mergeInto: string | null;
  /** Said to the operator and traced: why the run works in place although nobody asked. */
  notice: string | null;
}

/** `<data_dir>/.worktrees/<adw_id>`: a dot folder, so glob-based tools in the checkout skip it. */
export function worktreePath(dataDir: string, adwId: string): string {
  return path.join(dataDir, ".worktrees", adwId);
}

/** The branch of a run: `sssf/<adw_id>`. */
export function runBranch(adwId: string): string {
  return `sssf/${adwId}`;
}

function inPlace(request: WorkspaceRequest, git: CheckoutInfo | null, notice: string | null): WorkspacePlan {
  const checkout = request.config.repoRoot;
  return {
    action: "in-place",
    checkout,
    git,
    worktree: null,
    branch: null,
    baseRef: null,
    mergeInto: null,
    notice,
  };
}

/** Flags that need a branch, refused when the run will have none. */
function refuseBranchFlags(request: WorkspaceRequest, why: string): void {
  if (request.base !== undefined) throw new UsageError(`--base: ${why}`, "--base");
  if (request.merge) throw new UsageError(`--merge: ${why}`, "--merge");
}

async function mergeTarget(request: WorkspaceRequest, git: CheckoutInfo): Promise<string | null> {
  if (!request.merge) return null;
  if (request.base !== undefined) {
    const branch = await localBranchOf(git.topLevel, request.base);
    if (branch === null) {
      throw new UsageError(
        `--merge: --base "${request.base}" is not a local branch, so there is nothing to fast-forward (pass --base <branch>, or drop --merge)`,
        "--merge",
      );
    }
    return branch;
  }
  if (git.headBranch === null) {
    throw new UsageError(
      `--merge: HEAD is detached in ${git.topLevel}, so there is no branch to fast-forward (pass --base <branch>)`,
      "--merge",
    );
  }
  return git.headBranch;
}

async function planRejoin(request: WorkspaceRequest, existing: SessionRow): Promise<WorkspacePlan> {
  const { config, adwId } = request;
  // Rows from before sssf recorded worktrees lack the field: those runs were in place.
  if ((existing.worktree ?? null) === null) {
    refuseBranchFlags(
      request,
      `session ${adwId} ran in place (no branch of its own), and a rejoin stays in place`,
    );
    return inPlace(request, null, null);
  }
  if (request.base !== undefined) {
    throw new UsageError(
      `--base: session ${adwId} already has its branch ${existing.branch ?? runBranch(adwId)}; a rejoin keeps it (drop --base)`,
      "--base",
    );
  }
  if (request.inPlace) {
    throw new UsageError(
      `--in-place: session ${adwId} works in the worktree ${existing.worktree}; a rejoin keeps it (drop --in-place)`,
      "--in-place",
    );
  }
  const git = await inspectCheckout(config.repoRoot);
  if (git === null) {
    throw new SssfError(
      "not_a_git_repo",
      `cannot rejoin ${adwId}: ${config.repoRoot} is no longer a git work tree`,
    );
  }
  const worktree = worktreePath(config.dataDir, adwId);
  const branch = existing.branch ?? runBranch(adwId);
  const common = {
    checkout: config.repoRoot,
    git,
    worktree,
    branch,
    baseRef: existing.base_ref,
    notice: null,
  };
  const mergeInto = await mergeTarget(request, git);
  if (!existsSync(worktree)) {
    if (!(await branchExists(git.topLevel, branch))) {
      throw new UsageError(
        `--adw-id ${adwId}: both the worktree ${worktree} and the branch ${branch} are gone, so there is nothing to rejoin`,
        "--adw-id",
      );
    }
    return { action: "recreate", mergeInto, ...common };
  }
  const registered = (await listWorktrees(git)).some((entry) => samePath(entry.path, worktree));
  if (!registered) {
    throw new SssfError(
      "git_failed",
      `cannot rejoin ${adwId}: ${worktree} exists but is not a worktree of ${git.topLevel}; move it away and rejoin`,
    );
  }
  return { action: "reuse", mergeInto, ...common };
}

/** Git lists worktrees by their real path. */
function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
}

/**
 * Decides where a run works, with no side effect: checks every flag first, so a bad `--base`, a
 * `--merge` without a branch to move, or a repository without commits is a UsageError before any
 * session file, branch or worktree exists. Outside git the run works in place and `notice` says so.
 */
export async function planWorkspace(request: WorkspaceRequest): Promise<WorkspacePlan> {
  const { config, adwId } = request;
  if (request.existing) return planRejoin(request, request.existing);
  if (request.inPlace) {
    refuseBranchFlags(request, "an --in-place run has no branch of its own (drop --in-place)");
    return inPlace(request, null, null);
  }
  const git = await inspectCheckout(config.repoRoot);
  if (git === null) {
    refuseBranchFlags(request, `${config.repoRoot} is not a git work tree`);
    return inPlace(
      request,
      null,
      `${config.repoRoot} is not a git work tree: running in place (no worktree, no branch)`,
    );
  }
  if (git.head === null) {
    throw new UsageError(`${git.topLevel} has no commits: commit once, or pass --in-place`);
  }
  let baseRef = git.head;
  if (request.base !== undefined) {
    const resolved = await resolveCommit(git.topLevel, request.base);
    if (resolved === null) {
      throw new UsageError(`--base: "${request.base}" does not name a commit in ${git.topLevel}`, "--base");
    }
    baseRef = resolved;
  }
  const mergeInto = await mergeTarget(request, git);
  const worktree = worktreePath(config.dataDir, adwId);
  const branch = runBranch(adwId);
  if (await branchExists(git.topLevel, branch)) {
    throw new UsageError(
      `--adw-id ${adwId}: the branch ${branch} already exists but no session has that id; pick another id, or delete the branch (git branch -D ${branch})`,
      "--adw-id",
    );
  }
  if (existsSync(worktree)) {
    throw new UsageError(
      `--adw-id ${adwId}: ${worktree} already exists but no session has that id; pick another id, or remove it`,
      "--adw-id",
    );
  }
  return {
    action: "create",
    checkout: config.repoRoot,
    git,
    worktree,
    branch,
    baseRef,
    mergeInto,
    notice: null,
  };
}
