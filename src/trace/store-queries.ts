/**
 * The CLI's and the UI's reads of a trace on a {@link TraceStore}: the same statements on SQLite and
 * PostgreSQL (translated there), so both give the same rows. queries.ts runs the same SQL texts.
 */

import { SssfError } from "../errors/index.js";
import {
  type EventRow,
  type EventType,
  type PhaseRow,
  PRIMARY_KEYS,
  type SessionRow,
  type SessionStatus,
  type StepRow,
  TRACE_TABLES,
  type TraceTable,
  type TraceTables,
} from "./events.js";
import type { TraceSql } from "./store.js";

/** Options of {@link listStoreSessions}. */
export interface ListSessionsOptions {
  /** Most sessions to return (default: all). */
  limit?: number;
  /** Include archived sessions (default false). */
  includeArchived?: boolean;
  /** Only sessions with this status. */
  status?: SessionStatus;
}

/** Options of {@link listStoreEvents}. */
export interface ListEventsOptions {
  /** Only events of this type. */
  type?: EventType;
  /** Most events to return, the earliest first (default: all). */
  limit?: number;
}

/** Sessions, newest first: `@includeArchived`, `@status`, `@limit` (-1: all). */
export const LIST_SESSIONS_SQL = `SELECT * FROM sessions
     WHERE (@includeArchived = 1 OR archived = 0) AND (@status IS NULL OR status = @status)
     ORDER BY started_at DESC, adw_id DESC LIMIT @limit`;

/** A session's events by `started_at`, then id: `@adwId`, `@type`, `@limit`. */
export const LIST_EVENTS_SQL = `SELECT * FROM events WHERE adw_id = @adwId AND (@type IS NULL OR type = @type)
     ORDER BY started_at, id LIMIT @limit`;

export const GET_SESSION_SQL = "SELECT * FROM sessions WHERE adw_id = ?";

export const LIST_PHASES_SQL = "SELECT * FROM phases WHERE adw_id = ? ORDER BY number, started_at, id";

export const LIST_STEPS_SQL = "SELECT * FROM steps WHERE adw_id = ? ORDER BY attempt, created_at, id";

/** Sessions, newest `started_at` first. */
export async function listStoreSessions(
  db: TraceSql,
  options: ListSessionsOptions = {},
): Promise<SessionRow[]> {
  return db.all<SessionRow>(LIST_SESSIONS_SQL, {
    includeArchived: options.includeArchived === true ? 1 : 0,
    status: options.status ?? null,
    limit: options.limit ?? -1,
  });
}

/** The session `adwId`, or undefined. */
export async function getStoreSession(db: TraceSql, adwId: string): Promise<SessionRow | undefined> {
  return db.get<SessionRow>(GET_SESSION_SQL, [adwId]);
}

/** The session's events by `started_at`, then id. */
export async function listStoreEvents(
  db: TraceSql,
  adwId: string,
  options: ListEventsOptions = {},
): Promise<EventRow[]> {
  return db.all<EventRow>(LIST_EVENTS_SQL, { adwId, type: options.type ?? null, limit: options.limit ?? -1 });
}

/** The session's phases by number. */
export async function listStorePhases(db: TraceSql, adwId: string): Promise<PhaseRow[]> {
  return db.all<PhaseRow>(LIST_PHASES_SQL, [adwId]);
}

/** The session's journal of durable steps, every attempt, in the order they were written. */
export async function listStoreSteps(db: TraceSql, adwId: string): Promise<StepRow[]> {
  return db.all<StepRow>(LIST_STEPS_SQL, [adwId]);
}

/** Every row of `table` by primary key. SssfError("usage") for a name that is not a trace table. */
export async function readStoreTable<T extends TraceTable>(
  db: TraceSql,
  table: T,
): Promise<TraceTables[T][]> {
  if (!TRACE_TABLES.includes(table)) throw new SssfError("usage", `Unknown trace table "${String(table)}".`);
  return db.all<TraceTables[T]>(`SELECT * FROM ${table} ORDER BY ${PRIMARY_KEYS[table].join(", ")}`);
}
