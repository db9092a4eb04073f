/**
 * One lock per repository around the git steps that read or write `.git/worktrees/` (add, remove,
 * prune, list). Git writes a new worktree's record file by file, and another git process that lists
 * worktrees meanwhile can die on the half-written entry ("failed to read .git/worktrees/<id>/commondir"),
 * so concurrent runs take turns at these steps. The lock is a file created with `O_EXCL` in the
 * repository's common git dir, holding its owner's pid; a dead owner's lock is taken over.
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { SssfError } from "../errors/sssf-error.js";
import { processAlive } from "../util/process-group.js";

/** The lock's file name inside the common git dir. */
export const WORKTREE_LOCK_NAME = "sssf-worktree.lock";

/** How long one live holder may keep the lock before a waiter gives up (git's longest step is a big checkout). */
const DEFAULT_WAIT_MS = 120_000;

/** The longest pause between two looks at a held lock. */
const POLL_MAX_MS = 10;

/** An unreadable lock (or takeover guard) older than this was left by a process that died while writing it. */
const ABANDONED_MS = 10_000;

/** What the lock file holds (snake_case: it is a file on disk, read by other processes). */
export interface LockContent {
  pid: number;
  host: string;
  started_at: string;
  /** Tells this acquisition apart from any other of the same process. */
  token: string;
}

/** The lock file as read: its text, when it was written, and its content when that parses. */
export interface LockSnapshot {
  raw: string;
  mtimeMs: number;
  content: LockContent | null;
}

/** How to wait for the lock. */
export interface WorktreeLockOptions {
  /** Most milliseconds to wait while one and the same live holder keeps the lock (default 120 s). */
  waitMs?: number;
  /**
   * For reads (`git worktree list`): when the common dir is not writable (a read-only repository),
   * go on without the lock instead of failing.
   */
  optional?: boolean;
}

/** Waiting for the worktree lock took too long: its holder is alive (or on another host) and kept it. */
export class WorktreeLockTimeoutError extends SssfError {
  readonly lockFile: string;
  /** The holder's pid, or 0 when its lock could not be read. */
  readonly holderPid: number;

  constructor(lockFile: string, holder: LockContent | null, waitedMs: number) {
    const who = holder ? `pid ${holder.pid} on ${holder.host} (since ${holder.started_at})` : "a process";
    super(
      "git_failed",
      `the worktree lock ${lockFile} is held by ${who} and was not released within ${Math.round(waitedMs / 1000)} s; if no sssf process is using this repository, delete ${lockFile}`,
    );
    this.name = "WorktreeLockTimeoutError";
    this.lockFile = lockFile;
    this.holderPid = holder?.pid ?? 0;
  }
}

/** `<common git dir>/sssf-worktree.lock`. */
export function worktreeLockPath(commonDir: string): string {
  return path.join(commonDir, WORKTREE_LOCK_NAME);
}

export function readLock(file: string): LockSnapshot | null {
  try {
    const raw = readFileSync(file, "utf8");
    const mtimeMs = statSync(file).mtimeMs;
    let content: LockContent | null = null;
    try {
      const parsed = JSON.parse(raw) as Partial<LockContent>;
      if (typeof parsed.pid === "number" && typeof parsed.host === "string") content = parsed as LockContent;
    } catch {
      // Being written right now, or left half-written by a process that died.
    }
    return { raw, mtimeMs, content };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw lockError(file, error);
  }
}

function lockError(file: string, error: unknown): SssfError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new SssfError("git_failed", `cannot use the worktree lock ${file}: ${reason}`, { cause: error });
}

/** The holder is gone for sure: a dead pid on this host, or a lock that never got its content. */
export function isStale(lock: LockSnapshot): boolean {
  if (lock.content === null) return Date.now() - lock.mtimeMs > ABANDONED_MS;
  return lock.content.host === hostname() && !processAlive(lock.content.pid);
}

export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already.
  }
}

/**
 * Removes the stale lock `seen`, unless it changed meanwhile; false when another waiter is at it.
 * Takeovers go one at a time through a guard file, so a waiter that read the stale lock late never
 * deletes the fresh lock of the waiter that took over first. Synchronous: nothing in this process
 * runs between the check and the unlink.
 */
function takeOver(file: string, seen: LockSnapshot): boolean {
  const guard = `${file}.takeover`;
  try {
    closeSync(openSync(guard, "wx"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw lockError(guard, error);
    // Another waiter is taking over; a guard this old was left by one that died doing it.
    const age = Date.now() - (statSync(guard, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > ABANDONED_MS) removeQuietly(guard);
    return false;
  }
  try {
    const now = readLock(file);
    if (now !== null && now.raw === seen.raw && now.mtimeMs === seen.mtimeMs) removeQuietly(file);
    return true;
  } finally {
    removeQuietly(guard);
  }
}

/** Locks this process holds, released on exit (`process.exit` skips `finally` blocks). */
const held = new Map<string, string>();
let exitHookInstalled = false;

function releaseFile(file: string, token: string): void {
  if (held.get(file) === token) held.delete(file);
  const lock = readLock(file);
  if (lock?.content?.token === token) removeQuietly(file);
}

function tryCreate(file: string, options: WorktreeLockOptions): (() => void) | "held" {
  const content: LockContent = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    token: randomUUID(),
  };
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return "held";
    if (options.optional && (code === "EACCES" || code === "EPERM" || code === "EROFS"))
      return () => undefined;
    throw lockError(file, error);
  }
  try {
    writeSync(fd, JSON.stringify(content));
    closeSync(fd);
  } catch (error) {
    closeSync(fd);
    removeQuietly(file);
    throw lockError(file, error);
  }
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const [lockFile, token] of held) releaseFile(lockFile, token);
    });
  }
  held.set(file, content.token);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    releaseFile(file, content.token);
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock file `file`, waiting while a live process holds it: polls with a short backoff, takes
 * over the lock of a dead holder on this host, and rejects with `WorktreeLockTimeoutError` (naming the
 * file and the holder) once one holder kept it longer than `waitMs`. Resolves to the release function
 * (idempotent; it removes only this acquisition's lock). Other file-system failures reject with an
 * SssfError naming the file.
 */
export async function acquireWorktreeLock(
  file: string,
  options: WorktreeLockOptions = {},
): Promise<() => void> {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  let holder: string | null = null;
  let holderSince = Date.now();
  for (let attempt = 0; ; attempt++) {
    const release = tryCreate(file, options);
    if (release !== "held") return release;
    const lock = readLock(file);
    if (lock === null) continue; // Released between our two looks.
    // After a takeover (ours or one under way) the next look finds the lock free or freshly held.
    if (isStale(lock) && takeOver(file, lock)) continue;
    const identity = lock.content?.token ?? lock.raw;
    if (identity !== holder) {
      holder = identity;
      holderSince = Date.now();
    } else if (Date.now() - holderSince > waitMs) {
      throw new WorktreeLockTimeoutError(file, lock.content, Date.now() - holderSince);
    }
    // 2, 4, 8, then every 10 ms (a look is a failed open and a read), with jitter so waiters do not
    // poll in step: the lock changes hands within a few ms of its release.
    await sleep(Math.min(POLL_MAX_MS, 2 ** Math.min(attempt + 1, 4)) * (0.5 + Math.random()));
  }
}

/** Per lock file, the end of this process's queue: its own callers wait here instead of polling the file. */
const queues = new Map<string, Promise<void>>();

/**
 * Runs `work` holding the worktree lock of the repository whose common git dir is `commonDir`, and
 * releases it however `work` ends. Callers in one process queue up in order; other processes wait on
 * the file (see `acquireWorktreeLock`). Never nest: `work` must not take the same lock again.
 */
export async function withWorktreeLock<T>(
  commonDir: string,
  work: () => Promise<T>,
  options: WorktreeLockOptions = {},
): Promise<T> {
  const file = worktreeLockPath(commonDir);
  const before = queues.get(file) ?? Promise.resolve();
  let done: () => void = () => undefined;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const tail = before.then(() => mine);
  queues.set(file, tail);
  try {
    await before;
    const release = await acquireWorktreeLock(file, options);
    try {
      return await work();
    } finally {
      release();
    }
  } finally {
    done();
    if (queues.get(file) === tail) queues.delete(file);
  }
}
