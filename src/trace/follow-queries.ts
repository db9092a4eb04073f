/**
 * The incremental reads of a live tail (`sssf tail`): a session's events in the order they were
 * written, from a cursor on. Every write of a row (an upsert too) gives it a new, larger rowid, so the
 * rows above the cursor are exactly those written since the last read.
 */

import type { EventRow, PhaseRow } from "./events.js";
import type { TraceDb } from "./sqlite.js";
import { cachedStatement } from "./statement-cache.js";

/** An event row with the rowid it was (last) written at: the tail's cursor. */
export type CursorEventRow = EventRow & { _rowid: number };

/** The session's events written after rowid `after`, in write order, at most `limit` of them. */
export function listEventsAfter(db: TraceDb, adwId: string, after: number, limit = 1000): CursorEventRow[] {
  const sql = "SELECT rowid AS _rowid, * FROM events WHERE adw_id = ? AND rowid > ? ORDER BY rowid LIMIT ?";
  return cachedStatement(db, sql).all(adwId, after, limit) as CursorEventRow[];
}

/** The phase `id` as it stands now, or undefined. */
export function getPhase(db: TraceDb, id: string): PhaseRow | undefined {
  return cachedStatement(db, "SELECT * FROM phases WHERE id = ?").get(id) as PhaseRow | undefined;
}
