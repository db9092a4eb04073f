import { existsSync, readdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { checkpointRef, dropWorkCheckpoints } from "../code/work-checkpoint.js";
import { SessionLockedError } from "../errors/session-locked-error.js";
import { isSssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import { sessionDirs } from "../session/session-dirs.js";
import { acquireSessionLock } from "../session/session-lock.js";
import type { SessionRow } from "../trace/events.js";
import { openTraceStore } from "../trace/open-store.js";
import type { TraceStore } from "../trace/store.js";
import { getSession } from "../trace/store-queries.js";
import { traceMayExist } from "../trace/trace-location.js";
import { isFailedRun, keepFailedOutput, wipRef } from "./clean-keep-output.js";
import {
  type GitRepo,
  inspectCheckout,
  listWorktrees,
  pruneWorktrees,
  removeWorktree,
  resolveCommit,
  uncommittedPaths,
  type WorktreeEntry,
} from "./worktree.js";
import { branchCommits, deleteBranchAt } from "./worktree-dirty.js";
import { gitOrThrow } from "./worktree-git.js";
import { LINKED_DEPENDENCIES, unlinkDependencies } from "./worktree-links.js";

/** Where the worktrees and the sessions that own them are. */
export interface CleanRequest {
  /** The operator's checkout. */
  checkout: string;
  dataDir: string;
  sessionsDir: string;
  dbPath: string;
  /** Say what would happen; remove nothing. */
  dryRun: boolean;
  /** Remove worktrees with uncommitted changes too (and those of sessions left `running` by a dead process). */
  force: boolean;
}

/** What happened to one folder under `<data_dir>/.worktrees`, or to a run's branch without commits. */
export interface CleanEntry {
  adwId: string;
  /** The worktree; null for a run's branch whose worktree was gone already. */
  worktree: string | null;
  branch: string | null;
  outcome: "removed" | "would remove" | "pruned" | "skipped";
  /** Why, in a few words (the uncommitted paths, the running pid, git's reason, what became of the branch). */
  reason: string;
  /** The branch: `deleted` (it had no commits beyond its base), `would delete`, or `kept`; null without one. */
  branchOutcome: "deleted" | "would delete" | "kept" | null;
}

function realOrResolved(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/**
 * Reads session rows through one read-only connection, opened at the first lookup (a PostgreSQL
 * connection costs tens of ms; each query still sees what was committed since). `close()` ends it.
 */
function readSessions(dbPath: string): {
  get(adwId: string): Promise<SessionRow | undefined>;
  close(): Promise<void>;
} {
  if (!traceMayExist(dbPath, existsSync)) return { get: async () => undefined, close: async () => undefined };
  let db: Promise<TraceStore> | undefined;
  return {
    async get(adwId) {
      db ??= openTraceStore(dbPath, { readonly: true });
      return getSession(await db, adwId);
    },
    async close() {
      const opened = db;
      db = undefined;
      await (await opened?.catch(() => undefined))?.close();
    },
  };
}

/** The session's lock, when nobody else holds it: clean holds it while it removes the worktree. */
function takeLock(sessionsDir: string, adwId: string): (() => void) | SessionLockedError {
  const dirs = sessionDirs(sessionsDir, adwId);
  if (!existsSync(dirs.root)) return () => undefined;
  try {
    return acquireSessionLock(dirs.lockFile, adwId);
  } catch (error) {
    if (error instanceof SessionLockedError) return error;
    throw error;
  }
}

/** Why a worktree added while clean ran is left alone: its run is live, or it came too late for this pass. */
function addedMeanwhile(sessionsDir: string, adwId: string): string {
  const lock = takeLock(sessionsDir, adwId);
  if (lock instanceof SessionLockedError) return `running (pid ${lock.holderPid} holds the session)`;
  lock();
  return "added while clean ran: run sssf clean again to remove it";
}

function listing(paths: string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

async function cleanOne(
  request: CleanRequest,
  entry: WorktreeEntry,
  repo: GitRepo,
  session: SessionRow | undefined,
) {
  const adwId = path.basename(entry.path);
  const result = (
    outcome: CleanEntry["outcome"],
    reason: string,
    branchOutcome: CleanEntry["branchOutcome"] = entry.branch === null ? null : "kept",
  ): CleanEntry => ({
    adwId,
    worktree: entry.path,
    branch: entry.branch,
    outcome,
    reason,
    branchOutcome,
  });
  if (session?.status === "running" && !request.force) {
    return result(
      "skipped",
      `session marked running but no process holds it: rejoin with --adw-id ${adwId}, or --force`,
    );
  }
  if (entry.prunable || !existsSync(entry.path)) {
    if (!request.dryRun) await pruneWorktrees(repo);
    const branch = await emptyBranch(request, repo, entry.branch, session);
    return result(
      request.dryRun ? "would remove" : "pruned",
      `its folder was already gone${branch.note}`,
      branch.outcome,
    );
  }
  let dirty = await uncommittedPaths(entry.path, LINKED_DEPENDENCIES);
  // A failed run's worktree: what is uncommitted there is the run's own output, kept, then removed.
  let keptNote = "";
  const failedOutput = dirty.length > 0 && isFailedRun(session);
  if (failedOutput) {
    const what = `${dirty.length} uncommitted change${dirty.length === 1 ? "" : "s"} (${listing(dirty)}) of the failed run`;
    if (request.dryRun) keptNote = `; ${what} would be kept as ${wipRef(adwId)}`;
    else {
      const kept = await keepFailedOutput(entry.path, adwId, request.sessionsDir);
      const patch = kept.patch === null ? "" : ` and ${path.relative(request.checkout, kept.patch)}`;
      keptNote = `; ${what} kept as ${kept.ref}${patch}`;
    }
    dirty = [];
  }
  if (dirty.length > 0 && !request.force) {
    const count = `${dirty.length} uncommitted change${dirty.length === 1 ? "" : "s"}`;
    return result(
      "skipped",
      `${count} (${listing(dirty)}): commit them on its branch, or --force to lose them`,
    );
  }
  const emptyOne = dirty.length === 0 ? await emptyBranchTip(repo, entry.branch, session) : null;
  const kept = entry.branch ? `branch ${entry.branch} kept` : "detached, no branch";
  if (request.dryRun) {
    if (emptyOne === null) return result("would remove", `${kept}${keptNote}`);
    return result(
      "would remove",
      `branch ${entry.branch} has no commits: would delete it${keptNote}`,
      "would delete",
    );
  }
  unlinkDependencies(entry.path);
  await removeWorktree(repo, entry.path, request.force || failedOutput);
  // Without its worktree the run has nothing to put back: its checkpoints go too.
  await dropWorkCheckpoints(repo.topLevel, checkpointRef(adwId));
  if (emptyOne !== null && entry.branch !== null) {
    await deleteBranchAt(repo.topLevel, entry.branch, emptyOne);
    return result("removed", `branch ${entry.branch} had no commits: deleted${keptNote}`, "deleted");
  }
  return result(
    "removed",
    dirty.length > 0 ? `${kept}; ${dirty.length} uncommitted change(s) discarded` : `${kept}${keptNote}`,
  );
}

/**
 * The tip of `branch` when it is the finished run `session`'s own branch and holds no commit beyond
 * the run's base (not even a carry commit): such a branch is deleted with its worktree. Null otherwise.
 */
async function emptyBranchTip(
  repo: GitRepo,
  branch: string | null,
  session: SessionRow | undefined,
): Promise<string | null> {
  if (branch === null || session === undefined || session.status === "running") return null;
  if (session.branch !== branch || session.base_ref === null) return null;
  const commits = await branchCommits(repo.topLevel, session.base_ref, branch);
  if (commits === null || commits.own.length + commits.carried.length > 0) return null;
  return resolveCommit(repo.topLevel, `refs/heads/${branch}`);
}

/** `emptyBranchTip`, and the branch deleted (unless a dry run), for a worktree whose folder was gone. */
async function emptyBranch(
  request: CleanRequest,
  repo: GitRepo,
  branch: string | null,
  session: SessionRow | undefined,
): Promise<{ note: string; outcome: CleanEntry["branchOutcome"] }> {
  const tip = await emptyBranchTip(repo, branch, session);
  if (branch === null) return { note: "", outcome: null };
  if (tip === null) return { note: `; branch ${branch} kept`, outcome: "kept" };
  if (request.dryRun)
    return { note: `; branch ${branch} has no commits: would delete it`, outcome: "would delete" };
  await deleteBranchAt(repo.topLevel, branch, tip);
  return { note: `; branch ${branch} had no commits: deleted`, outcome: "deleted" };
}

/**
 * The branches of finished runs whose worktrees are gone already (an earlier clean kept them, or they
 * were removed by hand) and that hold no commit beyond their base: deleted, one entry each. A branch
 * checked out anywhere, of a session that is running or unknown, or with a commit is left alone.
 */
async function cleanEmptyBranches(
  request: CleanRequest,
  repo: GitRepo,
  handled: ReadonlySet<string>,
  sessionOf: (adwId: string) => Promise<SessionRow | undefined>,
): Promise<CleanEntry[]> {
  const checkedOut = new Set((await listWorktrees(repo)).map((entry) => entry.branch));
  const refs = await gitOrThrow(repo.topLevel, ["for-each-ref", "--format=%(refname)", "refs/heads/sssf/"]);
  const entries: CleanEntry[] = [];
  for (const ref of refs.split("\n")) {
    const branch = ref.slice("refs/heads/".length);
    if (!ref.startsWith("refs/heads/sssf/") || handled.has(branch) || checkedOut.has(branch)) continue;
    const adwId = branch.slice(branch.lastIndexOf("/") + 1);
    const lock = takeLock(request.sessionsDir, adwId);
    if (lock instanceof SessionLockedError) continue;
    try {
      const tip = await emptyBranchTip(repo, branch, await sessionOf(adwId));
      if (tip === null) continue;
      const reason = "no commits beyond its base; its worktree was removed already";
      if (!request.dryRun) await deleteBranchAt(repo.topLevel, branch, tip);
      entries.push({
        adwId,
        worktree: null,
        branch,
        outcome: request.dryRun ? "would remove" : "removed",
        reason,
        branchOutcome: request.dryRun ? "would delete" : "deleted",
      });
    } catch (error) {
      if (!isSssfError(error)) throw error;
      entries.push({
        adwId,
        worktree: null,
        branch,
        outcome: "skipped",
        reason: error.message,
        branchOutcome: "kept",
      });
    } finally {
      lock();
    }
  }
  return entries;
}

/**
 * Removes the worktrees of finished runs under `<data_dir>/.worktrees` with `git worktree remove`, then
 * `git worktree prune`. A worktree whose session lock is held is always skipped; one with uncommitted
 * changes (or whose session is still marked running) only without `force`, but a failed run's
 * uncommitted files are its own output: kept under `refs/sssf/wip/<adw_id>` and as a patch in its
 * session (`keepFailedOutput`), then the worktree is removed. A finished run's branch
 * that holds no commit beyond its base is deleted with its worktree, or alone when its worktree is
 * gone already (`cleanEmptyBranches`); a branch with a commit is never deleted.
 * A worktree added while clean runs (a run started meanwhile) is skipped, never taken for a stray folder.
 * Throws UsageError outside a git work tree; a worktree git refuses to remove is reported as skipped.
 */
export async function cleanWorktrees(request: CleanRequest): Promise<CleanEntry[]> {
  const git = await inspectCheckout(request.checkout);
  if (git === null)
    throw new UsageError(`${request.checkout} is not a git work tree: there are no worktrees to clean`);
  const folder = path.join(request.dataDir, ".worktrees");
  const parents = new Set([realOrResolved(folder), path.resolve(folder)]);
  const ours = (await listWorktrees(git)).filter((entry) => parents.has(path.dirname(entry.path)));
  const sessions = readSessions(request.dbPath);
  const sessionOf = (adwId: string) => sessions.get(adwId);
  try {
    const entries: CleanEntry[] = [];
    for (const entry of ours) {
      const adwId = path.basename(entry.path);
      const lock = takeLock(request.sessionsDir, adwId);
      if (lock instanceof SessionLockedError) {
        const reason = `running (pid ${lock.holderPid} holds the session)`;
        const branchOutcome = entry.branch === null ? null : "kept";
        entries.push({
          adwId,
          worktree: entry.path,
          branch: entry.branch,
          outcome: "skipped",
          reason,
          branchOutcome,
        });
        continue;
      }
      try {
        entries.push(await cleanOne(request, entry, git, await sessionOf(adwId)));
      } catch (error) {
        if (!isSssfError(error)) throw error;
        entries.push({
          adwId,
          worktree: entry.path,
          branch: entry.branch,
          outcome: "skipped",
          reason: error.message,
          branchOutcome: entry.branch === null ? null : "kept",
        });
      } finally {
        lock();
      }
    }
    const known = new Set(ours.map((entry) => path.basename(entry.path)));
    // Read the folder before listing again: a folder seen here whose `git worktree add` was still under
    // way has finished by then (the list waits for the worktree lock), so a run started meanwhile is
    // never mistaken for a stray folder.
    const names = existsSync(folder) ? readdirSync(folder) : [];
    // The removals are done: a failed second look only loses the finer reason below.
    const again = await listWorktrees(git).catch((error: unknown) => {
      if (isSssfError(error)) return [];
      throw error;
    });
    const added = new Map(
      again
        .filter((entry) => parents.has(path.dirname(entry.path)) && !known.has(path.basename(entry.path)))
        .map((entry) => [path.basename(entry.path), entry]),
    );
    for (const name of names) {
      if (known.has(name)) continue;
      const entry = added.get(name);
      entries.push({
        adwId: name,
        worktree: entry?.path ?? path.join(folder, name),
        branch: entry?.branch ?? null,
        branchOutcome: entry?.branch ? "kept" : null,
        outcome: "skipped",
        reason: entry
          ? addedMeanwhile(request.sessionsDir, name)
          : `not a worktree of ${git.topLevel}: remove it by hand if it is yours`,
      });
    }
    // Every branch of a worktree seen in either look is handled above (or belongs to a run started meanwhile).
    const handled = new Set(
      [...ours, ...again].flatMap((entry) => (entry.branch === null ? [] : [entry.branch])),
    );
    entries.push(...(await cleanEmptyBranches(request, git, handled, sessionOf)));
    return entries;
  } finally {
    await sessions.close();
  }
}
