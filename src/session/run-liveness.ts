import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { SessionRow } from "../trace/events.js";
import { processAlive } from "../util/process-group.js";

/** Who holds a session's `.lock` (see session-lock.ts). */
export interface LockHolder {
  pid: number;
  host: string;
}

/**
 * The holder written in `lockFile`: null when there is no lock file, "unreadable" when it exists but
 * does not parse (a lock being written right now reads empty). Never throws.
 */
export function readLockHolder(lockFile: string): LockHolder | null | "unreadable" {
  let text: string;
  try {
    text = readFileSync(lockFile, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : "unreadable";
  }
  try {
    const content = JSON.parse(text) as Partial<LockHolder>;
    if (typeof content.pid === "number" && typeof content.host === "string")
      return { pid: content.pid, host: content.host };
  } catch {
    // Half written: treated as held.
  }
  return "unreadable";
}

/** The live holder of `lockFile` on this host, or null (no lock, a dead holder, another host's). */
export function liveLockHolder(lockFile: string): LockHolder | null {
  const holder = readLockHolder(lockFile);
  if (holder === null || holder === "unreadable") return null;
  return holder.host === hostname() && processAlive(holder.pid) ? holder : null;
}

/**
 * `live`: an sssf process on this host runs it (the lock's holder or the row's pid is alive);
 * `dead`: its sssf on this host is gone without finalizing; `elsewhere`: another host runs it (never
 * judged from here).
 */
export type RunState = "live" | "dead" | "elsewhere";

/** What {@link runLiveness} found: the state and the sssf process it concerns. */
export interface RunLiveness {
  state: RunState;
  /** The sssf running (or that ran) the session: the lock's live holder, else the row's pid, else the lock's. */
  pid: number | null;
  host: string | null;
}

/**
 * Whether the sssf of a `running` session still runs it. The row's `pid`/`host` say who started it;
 * rows without them (older traces) are judged by the session's lock file. A lock that is being
 * written counts as live. Never throws.
 */
export function runLiveness(session: Pick<SessionRow, "pid" | "host">, lockFile: string): RunLiveness {
  const here = hostname();
  const lock = readLockHolder(lockFile);
  const held = lock !== null && lock !== "unreadable" ? lock : null;
  const pid = session.pid ?? held?.pid ?? null;
  const host = session.host ?? held?.host ?? null;
  if (lock === "unreadable") return { state: "live", pid, host };
  if (held !== null && held.host === here && processAlive(held.pid))
    return { state: "live", pid: held.pid, host: here };
  if (host !== null && host !== here) return { state: "elsewhere", pid, host };
  if (pid !== null && processAlive(pid)) return { state: "live", pid, host: here };
  return { state: "dead", pid, host: host ?? here };
}
