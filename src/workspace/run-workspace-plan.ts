import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { forgetAllRepoFacts } from "../code/git-facts.js";
import type { SssfConfig } from "../config/config-types.js";
import { engineOwnedPrefixes } from "../config/owned-prefixes.js";
import { SssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import { liveLockHolder } from "../session/run-liveness.js";
import { sessionDirs } from "../session/session-dirs.js";
import type { SessionRow } from "../trace/events.js";
import { readSessionRow } from "../trace/store-queries.js";
import { legacyRunBranch, runBranch, runBranchesIn, runBranchGlobs, worktreePath } from "./run-branch.js";
import {
  branchExists,
  type CheckoutInfo,
  inspectCheckout,
  listWorktrees,
  localBranchOf,
  repairWorktree,
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
  /** `--carry-dirty`: carry the checkout's uncommitted changes into the new worktree. */
  carryDirty: boolean;
  /** The workflow's name: a new branch is `sssf/<workflow>/<adw_id>`. */
  workflow: string;
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
  /** A new run's base as a local branch (`--base <branch>`, else HEAD's): what `sssf merge` lands in. Null otherwise. */
  baseBranch?: string | null;
  /** Said to the operator and traced: why the run works in place although nobody asked, or why a rejoin starts its branch again. */
  notice: string | null;
  /** `create` only: carry the checkout's uncommitted changes into the new worktree (`--carry-dirty`). */
  carryDirty: boolean;
  /** sssf's own paths in the checkout (its data dir, its db), relative to the top level: never the operator's changes. */
  ownPaths: string[];
  /** A rejoin starting its removed branch again: stale worktree records are pruned before the add. */
  prune?: true;
}

/** sssf's data dir and db as paths relative to the checkout's top level (those inside the checkout). */
function ownPathsOf(config: SssfConfig, git: CheckoutInfo): string[] {
  return engineOwnedPrefixes(config).map((p) => path.posix.join(git.prefix, p));
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
    carryDirty: false,
    ownPaths: [],
  };
}

/** Flags that need a branch, refused when the run will have none. */
function refuseBranchFlags(request: WorkspaceRequest, why: string): void {
  if (request.base !== undefined) throw new UsageError(`--base: ${why}`, "--base");
  if (request.merge) throw new UsageError(`--merge: ${why}`, "--merge");
  if (request.carryDirty) throw new UsageError(`--carry-dirty: ${why}`, "--carry-dirty");
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
  const branch = existing.branch ?? legacyRunBranch(adwId);
  if (request.base !== undefined) {
    throw new UsageError(
      `--base: session ${adwId} already has its branch ${branch}; a rejoin keeps it (drop --base)`,
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
  const common = {
    checkout: config.repoRoot,
    git,
    worktree,
    branch,
    baseRef: existing.base_ref,
    notice: null,
    ownPaths: ownPathsOf(config, git),
  };
  const mergeInto = await mergeTarget(request, git);
  const keeps = (what: string) =>
    new UsageError(
      `--carry-dirty: session ${adwId} already has its ${what}; a rejoin keeps it is (drop --carry-dirty)`,
      "--carry-dirty",
    );
  if (!existsSync(worktree)) {
    if (!(await branchExists(git.topLevel, branch)))
      return restartAtBase(request, existing, common, mergeInto);
    if (request.carryDirty) throw keeps(`branch ${branch}`);
    return { action: "recreate", mergeInto, carryDirty: false, ...common };
  }
  if (request.carryDirty) throw keeps(`worktree ${worktree}`);
  const registered = async () => (await listWorktrees(git)).some((entry) => samePath(entry.path, worktree));
  // The repository or the data dir was moved (or copied, as to another worker): the folder is the
  // run's worktree, but it and the repository no longer point at each other. Reconnect them.
  const stale = (await registered()) ? null : staleWorktreeLink(worktree, git.commonDir);
  if (stale !== null) await repairWorktree(git, worktree, stale).catch(() => undefined);
  if (!(await registered())) {
    throw new SssfError(
      "git_failed",
      `cannot rejoin ${adwId}: ${worktree} exists but is not a worktree of ${git.topLevel}; move it away and rejoin`,
    );
  }
  return { action: "reuse", mergeInto, carryDirty: false, ...common };
}

/**
 * The record in this repository (`<common dir>/worktrees/<name>`) that the folder `worktree` should be
 * linked to, when its link is stale because the repository or the folder was moved or copied: its
 * `.git` file names a record elsewhere (the repository before it moved, or the one it was copied
 * from: never followed, never written) or a record of this repository that no longer names it back.
 * Null when the link is sound or there is no such record here. Never throws.
 */
function staleWorktreeLink(worktree: string, commonDir: string): string | null {
  try {
    const link = /^gitdir: (.+)$/m.exec(readFileSync(path.join(worktree, ".git"), "utf8"))?.[1]?.trim();
    if (link === undefined) return null;
    const record = path.join(commonDir, "worktrees", path.basename(link));
    if (!existsSync(record)) return null;
    if (!samePath(link, record)) return record;
    const back = readFileSync(path.join(record, "gitdir"), "utf8").trim();
    return samePath(path.dirname(back), worktree) ? null : record;
  } catch {
    return null;
  }
}

/**
 * A rejoin whose worktree and branch are both gone: a run without commits removes them (at its end,
 * or `sssf clean`), so the branch starts again, under its recorded name, at the recorded base.
 * Without a recorded base that still names a commit there is nothing to start from: a UsageError.
 */
async function restartAtBase(
  request: WorkspaceRequest,
  existing: SessionRow,
  common: Omit<WorkspacePlan, "action" | "mergeInto" | "carryDirty" | "baseRef" | "git"> & {
    git: CheckoutInfo;
    baseRef: string | null;
  },
  mergeInto: string | null,
): Promise<WorkspacePlan> {
  const { adwId } = request;
  const base =
    existing.base_ref === null ? null : await resolveCommit(common.git.topLevel, existing.base_ref);
  if (base === null) {
    throw new UsageError(
      `--adw-id ${adwId}: both the worktree ${common.worktree} and the branch ${common.branch} are gone, and its base ${existing.base_ref ?? "(none recorded)"} names no commit, so there is nothing to rejoin`,
      "--adw-id",
    );
  }
  await refuseCarryOffHead(request, common.git, base);
  const notice = `the branch ${common.branch} and its worktree are gone (a run without commits leaves none): starting ${common.branch} again at its base ${base.slice(0, 12)}`;
  return {
    ...common,
    action: "create",
    baseRef: base,
    mergeInto,
    notice,
    carryDirty: request.carryDirty,
    prune: true,
  };
}

/**
 * `--carry-dirty` carries changes made on top of HEAD: onto another base they would revert what lies
 * between the two, and `--merge` would commit the operator's uncommitted work to their branch.
 */
async function refuseCarryOffHead(request: WorkspaceRequest, git: CheckoutInfo, base: string): Promise<void> {
  if (!request.carryDirty) return;
  if (base !== git.head) {
    throw new UsageError(
      `--carry-dirty: the checkout's uncommitted changes are on top of HEAD (${git.head?.slice(0, 12) ?? "none"}), not on top of the branch's base ${base.slice(0, 12)}; start from HEAD (drop --base), or commit or stash them first`,
      "--carry-dirty",
    );
  }
  if (request.merge) {
    throw new UsageError(
      "--carry-dirty: with --merge the carried changes would land on your branch as a commit while your checkout still holds them uncommitted; drop --merge and merge the run's branch by hand",
      "--carry-dirty",
    );
  }
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
 * The branch or worktree of `adwId` exists while no session row does: when another sssf holds the
 * session's lock it is that run starting right now (two `--adw-id` runs raced), or it finished
 * meanwhile. Either way the branch is a run's: say to wait, stop or join it, never to delete it.
 */
async function refuseLiveRace(config: SssfConfig, adwId: string): Promise<void> {
  const holder = liveLockHolder(sessionDirs(config.sessionsDir, adwId).lockFile);
  if (holder !== null)
    throw new UsageError(
      `--adw-id ${adwId}: another sssf process (pid ${holder.pid}) is running this session right now; wait for it to finish (sssf ps lists live runs), stop it with sssf kill ${adwId}, or use another --adw-id`,
      "--adw-id",
    );
  // The other run may have finished between this run's first look at the trace and now.
  if ((await readSessionRow(config.dbPath, adwId)) !== undefined)
    throw new UsageError(
      `--adw-id ${adwId}: another sssf run created this session meanwhile; run the command again to join it (sssf sessions shows it)`,
      "--adw-id",
    );
}

/**
 * Decides where a run works, with no side effect: checks every flag first, so a bad `--base`, a
 * `--merge` without a branch to move, or a repository without commits is a UsageError before any
 * session file, branch or worktree exists. Outside git the run works in place and `notice` says so.
 */
export async function planWorkspace(request: WorkspaceRequest): Promise<WorkspacePlan> {
  const { config, adwId } = request;
  // A run reads where its folders sit in git afresh; within the run, once per folder.
  forgetAllRepoFacts();
  if (request.existing) return planRejoin(request, request.existing);
  if (request.inPlace) {
    refuseBranchFlags(request, "an --in-place run has no branch of its own (drop --in-place)");
    return inPlace(request, null, null);
  }
  // The checkout and every branch of this id (any workflow's: its worktree folder would be the same) in one look.
  const git = await inspectCheckout(config.repoRoot, { globs: runBranchGlobs(adwId) });
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
  await refuseCarryOffHead(request, git, baseRef);
  const worktree = worktreePath(config.dataDir, adwId);
  const branch = runBranch(request.workflow, adwId);
  const [taken] = runBranchesIn(git.refs, adwId);
  const branchTaken = taken !== undefined;
  if (branchTaken || existsSync(worktree)) await refuseLiveRace(config, adwId);
  if (branchTaken) {
    throw new UsageError(
      `--adw-id ${adwId}: the branch ${taken} already exists but no session has that id; pick another id, or delete the branch (git branch -D ${taken})`,
      "--adw-id",
    );
  }
  if (existsSync(worktree)) {
    throw new UsageError(
      `--adw-id ${adwId}: ${worktree} already exists but no session has that id; pick another id, or remove it`,
      "--adw-id",
    );
  }
  const baseBranch =
    request.base !== undefined ? await localBranchOf(git.topLevel, request.base) : git.headBranch;
  return {
    action: "create",
    checkout: config.repoRoot,
    git,
    worktree,
    branch,
    baseRef,
    mergeInto,
    baseBranch,
    notice: null,
    carryDirty: request.carryDirty,
    ownPaths: ownPathsOf(config, git),
  };
}
