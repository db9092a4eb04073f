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

function listing(paths: string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

async function cleanOne(
  request: CleanRequest,
  entry: WorktreeEntry,
  top: string,
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
    if (!request.dryRun) await pruneWorktrees(top);
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
  await removeWorktree(top, entry.path, request.force);
  return result(
    "removed",
    dirty.length > 0 ? `${kept}; ${dirty.length} uncommitted change(s) discarded` : kept,
  );
}

/**
 * Removes the worktrees of finished runs under `<data_dir>/.worktrees` with `git worktree remove`, then
 * `git worktree prune`. A worktree whose session lock is held is always skipped; one with uncommitted
 * changes (or whose session is still marked running) only without `force`. Branches are never deleted.
 * Throws UsageError outside a git work tree; a worktree git refuses to remove is reported as skipped.
 */
export async function cleanWorktrees(request: CleanRequest): Promise<CleanEntry[]> {
  const git = await inspectCheckout(request.checkout);
  if (git === null)
    throw new UsageError(`${request.checkout} is not a git work tree: there are no worktrees to clean`);
  const folder = path.join(request.dataDir, ".worktrees");
  const parents = new Set([realOrResolved(folder), path.resolve(folder)]);
  const ours = (await listWorktrees(git.topLevel)).filter((entry) => parents.has(path.dirname(entry.path)));
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
      entries.push(await cleanOne(request, entry, git.topLevel, sessionOf(adwId)));
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
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    if (known.has(name)) continue;
    const reason = `not a worktree of ${git.topLevel}: remove it by hand if it is yours`;
    entries.push({
      adwId: name,
      worktree: path.join(folder, name),
      branch: null,
      outcome: "skipped",
      reason,
    });
  }
  return entries;
}
