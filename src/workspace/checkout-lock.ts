/**
 * Turn-taking at the operator's checkout between sssf's merges into it (`git merge --ff-only`, the
 * writer) and the write boundaries that snapshot and settle it around every send of a worktree run
 * (the readers). A merge rewrites files first and moves HEAD last: a snapshot taken in between sees
 * the merged files as changes made under an unmoved HEAD, during the agent's tool call, and would put
 * them on the agent and restore them. Readers never wait for each other; a merge waits until no
 * reader is in its section, and readers arriving meanwhile wait for the merge.
 *
 * On disk, in the repository's common git dir: the writer's lock `sssf-checkout.lock` (see
 * `acquireWorktreeLock`), held for the whole merge, and one file per reader in
 * `sssf-checkout-readers/`, holding its pid, so a reader that died is not waited for. Entering costs a
 * reader one file written and one looked for.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { SssfError } from "../errors/sssf-error.js";
import {
  acquireWorktreeLock,
  isStale,
  type LockContent,
  readLock,
  removeQuietly,
  sleep,
} from "./worktree-lock.js";

/** The writer's lock file name inside the common git dir. */
export const CHECKOUT_LOCK_NAME = "sssf-checkout.lock";
/** The folder of reader files inside the common git dir. */
export const CHECKOUT_READERS_NAME = "sssf-checkout-readers";

/** How long a merge waits for the readers in their sections (a snapshot stores dirty files: seconds at most). */
const WRITER_WAIT_MS = 120_000;
const POLL_MS = 5;

/** A reader file's content: a lock file's (snake_case: read by other processes). */
type ReaderContent = LockContent;

/** Reader files this process holds, removed on exit (`process.exit` skips `finally` blocks). */
const ownReaders = new Set<string>();
let exitHookInstalled = false;

/** True for the errors of a git dir sssf may not write (a read-only repository). */
function notWritable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EACCES" || code === "EPERM" || code === "EROFS";
}

/** Writes the reader file `file`; false when the git dir is read-only. Throws other failures. */
function register(readers: string, file: string): boolean {
  const content: ReaderContent = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    token: path.basename(file, ".json"),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(content), { flag: "wx" });
      return true;
    } catch (error) {
      let failure = error;
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && attempt === 0) {
        try {
          mkdirSync(readers, { recursive: true });
          continue;
        } catch (mkdirError) {
          failure = mkdirError;
        }
      }
      if (notWritable(failure)) return false;
      throw new SssfError("git_failed", `cannot register in ${readers}: ${(failure as Error).message}`, {
        cause: failure,
      });
    }
  }
}

/**
 * Runs `work` as a reader of the checkout whose common git dir is `commonDir`: never while sssf merges
 * into it. A reader registers first and then looks for the writer's lock; a writer takes its lock
 * first and then looks for readers. So at least one of the two sees the other, and a reader that sees
 * the lock steps back until the merge is over. In a repository whose git dir is read-only nothing
 * can merge, and `work` runs unlocked.
 */
export async function withCheckoutRead<T>(commonDir: string, work: () => Promise<T>): Promise<T> {
  const readers = path.join(commonDir, CHECKOUT_READERS_NAME);
  const lock = path.join(commonDir, CHECKOUT_LOCK_NAME);
  const file = path.join(readers, `${process.pid}-${randomUUID()}.json`);
  let registered = false;
  for (;;) {
    registered = register(readers, file);
    if (!registered || !existsSync(lock)) break;
    removeQuietly(file);
    // A merge holds the lock (or a dead process left it): taking it in turn waits for the first and
    // takes over the second; released at once, the next look finds the way clear.
    (await acquireWorktreeLock(lock))();
  }
  if (registered) {
    ownReaders.add(file);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on("exit", () => {
        for (const own of ownReaders) removeQuietly(own);
      });
    }
  }
  try {
    return await work();
  } finally {
    if (registered) {
      ownReaders.delete(file);
      removeQuietly(file);
    }
  }
}

/**
 * The reader files still in their sections, the dead ones removed: a reader file is judged like a
 * lock file (`isStale`), so a reader that died, even while writing its file, is not waited for.
 */
function liveReaders(readers: string): (ReaderContent | null)[] {
  let names: string[];
  try {
    names = readdirSync(readers);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const live: (ReaderContent | null)[] = [];
  for (const name of names) {
    const file = path.join(readers, name);
    const reader = readLock(file);
    if (reader === null) continue;
    if (isStale(reader)) removeQuietly(file);
    else live.push(reader.content);
  }
  return live;
}

/**
 * Runs `work` as the writer of the checkout whose common git dir is `commonDir`: holding the writer's
 * lock, once no reader is in its section. Rejects with an SssfError naming the reader when one stays longer
 * than two minutes.
 */
export async function withCheckoutWrite<T>(commonDir: string, work: () => Promise<T>): Promise<T> {
  const readers = path.join(commonDir, CHECKOUT_READERS_NAME);
  const release = await acquireWorktreeLock(path.join(commonDir, CHECKOUT_LOCK_NAME));
  try {
    const since = Date.now();
    for (;;) {
      const live = liveReaders(readers);
      if (live.length === 0) break;
      if (Date.now() - since > WRITER_WAIT_MS) {
        const who = live[0] ? `pid ${live[0].pid} on ${live[0].host}` : "a process";
        throw new SssfError(
          "git_failed",
          `a write boundary of ${who} kept the checkout's snapshot open for ${Math.round(WRITER_WAIT_MS / 1000)} s (${readers}); if no sssf process is using this repository, delete that folder`,
        );
      }
      await sleep(POLL_MS);
    }
    return await work();
  } finally {
    release();
  }
}
