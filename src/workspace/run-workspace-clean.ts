import { existsSync, readdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { SessionLockedError } from "../errors/session-locked-error.js";
import { isSssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import { sessionDirs } from "../session/session-dirs.js";
import { acquireSessionLock } from "../session/session-lock.js";
import { openTraceDb } from "../trace/database.js";
import type { SessionRow } from "../trace/events.js";
import { getSession } from "../trace/queries.js";
import {
  type GitRepo,
  inspectCheckout,
  listWorktrees,
  pruneWorktrees,
  removeWorktree,
  uncommittedPaths,
  type WorktreeEntry,
} from "./worktree.js";
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

/** What happened to one folder under `<data_dir>/.worktrees`. */
export interface CleanEntry {
  adwId: string;
  worktree: string;
  branch: string | null;
  outcome: "removed" | "would remove" | "pruned" | "skipped";
  /** Why, in a few words (the uncommitted paths, the running pid, git's reason). */
  reason: string;
}

function realOrResolved(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function readSessions(dbPath: string): (adwId: string) => SessionRow | undefined {
  if (!existsSync(dbPath)) return () => undefined;
  return (adwId) => {
    const db = openTraceDb(dbPath, { readonly: true });
    try {
      return getSession(db, adwId);
    } finally {
      db.close();
    }
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
  const result = (outcome: CleanEntry["outcome"], reason: string): CleanEntry => ({
    adwId,
    worktree: entry.path,
    branch: entry.branch,
    outcome,
    reason,
  });
  if (session?.status === "running" && !request.force) {
    return result(
      "skipped",
      `session marked running but no process holds it: rejoin with --adw-id ${adwId}, or --force`,
    );
  }
  if (entry.prunable || !existsSync(entry.path)) {
    if (!request.dryRun) await pruneWorktrees(repo);
    return result(request.dryRun ? "would remove" : "pruned", "its folder was already gone");
  }
  const dirty = await uncommittedPaths(entry.path, LINKED_DEPENDENCIES);
  if (dirty.length > 0 && !request.force) {
    const count = `${dirty.length} uncommitted change${dirty.length === 1 ? "" : "s"}`;
    return result(
      "skipped",
      `${count} (${listing(dirty)}): commit them on its branch, or --force to lose them`,
    );
  }
  const kept = entry.branch ? `branch ${entry.branch} kept` : "detached, no branch";
  if (request.dryRun) return result("would remove", kept);
  unlinkDependencies(entry.path);
  await removeWorktree(repo, entry.path, request.force);
  return result(
    "removed",
    dirty.length > 0 ? `${kept}; ${dirty.length} uncommitted change(s) discarded` : kept,
  );
}

/**
 * Removes the worktrees of finished runs under `<data_dir>/.worktrees` with `git worktree remove`, then
 * `git worktree prune`. A worktree whose session lock is held is always skipped; one with uncommitted
 * changes (or whose session is still marked running) only without `force`. Branches are never deleted.
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
  const sessionOf = readSessions(request.dbPath);
  const entries: CleanEntry[] = [];
  for (const entry of ours) {
    const adwId = path.basename(entry.path);
    const lock = takeLock(request.sessionsDir, adwId);
    if (lock instanceof SessionLockedError) {
      const reason = `running (pid ${lock.holderPid} holds the session)`;
      entries.push({ adwId, worktree: entry.path, branch: entry.branch, outcome: "skipped", reason });
      continue;
    }
    try {
      entries.push(await cleanOne(request, entry, git, sessionOf(adwId)));
    } catch (error) {
      if (!isSssfError(error)) throw error;
      entries.push({
        adwId,
        worktree: entry.path,
        branch: entry.branch,
        outcome: "skipped",
        reason: error.message,
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
      outcome: "skipped",
      reason: entry
        ? addedMeanwhile(request.sessionsDir, name)
        : `not a worktree of ${git.topLevel}: remove it by hand if it is yours`,
    });
  }
  return entries;
}
