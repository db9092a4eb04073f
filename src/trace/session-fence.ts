/**
 * Fencing a session's writers (docs/cluster.md, "A worker taken for dead"). A cluster run's session row
 * names the process that runs it (`host`, `pid`). A worker that takes the run over first claims the row
 * (a compare-and-set from the owner it saw to itself); from then on every batch of the old attempt's
 * tracer finds another owner inside its own transaction and is refused, so an attempt taken for dead
 * that wakes up (a stopped process, a healed partition) writes nothing more to the trace.
 */

import { SssfError } from "../errors/index.js";
import type { TraceDb } from "./sqlite.js";

/** The process a session row names as the one running it. */
export interface SessionOwner {
  host: string;
  pid: number;
}

/** A tracer that writes only while its session names `owner`; `onFenced` hears once when it no longer does. */
export interface SessionFence {
  adwId: string;
  owner: SessionOwner;
  /** `holder`: the owner the row names now (null: the row is gone). */
  onFenced(holder: SessionOwner | null): void;
}

/** Thrown inside a fenced tracer's transaction: its batch must not commit. */
export class FencedError extends Error {
  constructor(readonly holder: SessionOwner | null) {
    super(
      holder === null
        ? "the session's row is gone from the trace"
        : `the session is run by ${ownerName(holder)} now`,
    );
    this.name = "FencedError";
  }
}

export function ownerName(owner: { host: string | null; pid: number | null }): string {
  return `pid ${owner.pid ?? "?"} on ${owner.host ?? "an unknown host"}`;
}

const sameOwner = (a: SessionOwner, b: { host: string | null; pid: number | null }) =>
  a.host === b.host && a.pid === b.pid;

/**
 * Throws FencedError unless the session's row is absent (the run's first batch creates it) or names
 * the fence's owner. `locked`: inside a write transaction, where PostgreSQL must lock the row so a
 * claim cannot commit between this read and the batch (SQLite's write transaction already excludes it).
 */
export function checkSessionOwner(db: TraceDb, fence: SessionFence, locked: boolean): void {
  const sql = `SELECT host, pid FROM sessions WHERE adw_id = ?${locked && db.dialect === "postgres" ? " FOR UPDATE" : ""}`;
  const row = db.prepare(sql).get(fence.adwId) as { host: string | null; pid: number | null } | undefined;
  if (row === undefined || sameOwner(fence.owner, row)) return;
  throw new FencedError(
    row.host === null || row.pid === null ? null : { host: row.host, pid: Number(row.pid) },
  );
}

/**
 * Makes `to` the owner of session `adwId` if the row still names `from` (compare-and-set, one
 * statement). Returns false when another process changed the owner first, or the row is gone.
 */
export function claimSession(
  db: TraceDb,
  adwId: string,
  from: { host: string | null; pid: number | null },
  to: SessionOwner,
): boolean {
  if (from.host === null || from.pid === null) {
    throw new SssfError(
      "internal",
      `session ${adwId} names no process (host ${from.host}, pid ${from.pid}): nothing to claim it from`,
    );
  }
  const changed = db
    .prepare("UPDATE sessions SET host = ?, pid = ? WHERE adw_id = ? AND host = ? AND pid = ?")
    .run(to.host, to.pid, adwId, from.host, from.pid).changes;
  return Number(changed) === 1;
}
