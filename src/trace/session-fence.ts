/**
 * Fencing a session's writers (docs/cluster.md, "A worker taken for dead"). A cluster run's session row
 * names the process that runs it (`host`, `pid`). A worker that takes the run over first claims the row
 * (a compare-and-set from the owner it saw to itself); from then on every batch of the old attempt's
 * tracer finds another owner inside its own transaction and is refused, so an attempt taken for dead
 * that wakes up (a stopped process, a healed partition) writes nothing more to the trace.
 */

import { SssfError } from "../errors/index.js";
import type { TraceSql } from "./store.js";

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
 * Rejects with FencedError unless the session's row is absent (the run's first batch creates it) or
 * names the fence's owner. `lockRow`: inside a PostgreSQL write transaction, where the row must be
 * locked so a claim cannot commit between this read and the batch (SQLite's write transaction already
 * excludes it).
 */
export async function checkSessionOwner(db: TraceSql, fence: SessionFence, lockRow: boolean): Promise<void> {
  const sql = `SELECT host, pid FROM sessions WHERE adw_id = ?${lockRow ? " FOR UPDATE" : ""}`;
  const row = await db.get<{ host: string | null; pid: number | null }>(sql, [fence.adwId]);
  if (row === undefined || sameOwner(fence.owner, row)) return;
  throw new FencedError(
    row.host === null || row.pid === null ? null : { host: row.host, pid: Number(row.pid) },
  );
}

/**
 * Makes `to` the owner of session `adwId` if the row still names `from` (compare-and-set, one
 * statement). Resolves false when another process changed the owner first, or the row is gone.
 */
export async function claimSession(
  db: TraceSql,
  adwId: string,
  from: { host: string | null; pid: number | null },
  to: SessionOwner,
): Promise<boolean> {
  if (from.host === null || from.pid === null) {
    throw new SssfError(
      "internal",
      `session ${adwId} names no process (host ${from.host}, pid ${from.pid}): nothing to claim it from`,
    );
  }
  const { changes } = await db.run(
    "UPDATE sessions SET host = ?, pid = ? WHERE adw_id = ? AND host = ? AND pid = ?",
    [to.host, to.pid, adwId, from.host, from.pid],
  );
  return changes === 1;
}
