/**
 * The reads of a trace on a {@link TraceStore} (the engine's, the CLI's, the UI's): the same statements
 * on SQLite and PostgreSQL (translated there), so both give the same rows. Each throws only what the
 * database throws.
 */

import { existsSync } from "node:fs";
import { SssfError } from "../errors/index.js";
import { columnNames } from "./columns.js";
import {
  type AgentSessionRow,
  type EnvelopeRow,
  type EventRow,
  type EventType,
  type GateResultRow,
  type PhaseRow,
  PRIMARY_KEYS,
  type ProcessRow,
  type SessionRow,
  type SessionStatus,
  type StepRow,
  TRACE_TABLES,
  type TraceTable,
  type TraceTables,
} from "./events.js";
import { openTraceStore } from "./open-store.js";
import type { TraceSql } from "./store.js";
import { traceMayExist } from "./trace-location.js";

/** Options of {@link listSessions}. */
export interface ListSessionsOptions {
  /** Most sessions to return (default: all). */
  limit?: number;
  /** Include archived sessions (default false). */
  includeArchived?: boolean;
  /** Only sessions with this status. */
  status?: SessionStatus;
}

/** Options of {@link listEvents}. */
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

export const MAX_PHASE_NUMBER_SQL = "SELECT COALESCE(MAX(number), 0) AS number FROM phases WHERE adw_id = ?";

/** The newest accepted envelope of a session (see {@link latestAcceptedEnvelope}). */
export const LATEST_ACCEPTED_ENVELOPE_SQL = `SELECT e.envelope_json FROM envelopes e LEFT JOIN phases p ON p.id = e.phase_id
     WHERE e.adw_id = ? AND e.envelope_json IS NOT NULL AND (e.accepted = 1 OR (e.accepted IS NULL
       AND e.valid = 1 AND e.status = 'success'
       AND NOT EXISTS (SELECT 1 FROM gate_results g WHERE g.envelope_id = e.id AND g.ok = 0)))
     ORDER BY p.number DESC, e.created_at DESC, e.id DESC LIMIT 1`;

/** The sessions of {@link LIST_SESSIONS_SQL} as one JSON array text built by the database. */
export const LIST_SESSIONS_JSON_SQL = `SELECT json_group_array(json(row)) AS rows FROM (
       SELECT json_object(${columnNames("sessions")
         .map((c) => `'${c}', ${c}`)
         .join(", ")}) AS row FROM sessions
       WHERE (@includeArchived = 1 OR archived = 0) AND (@status IS NULL OR status = @status)
       ORDER BY started_at DESC, adw_id DESC LIMIT @limit) AS page`;

const sessionParams = (options: ListSessionsOptions) => ({
  includeArchived: options.includeArchived === true ? 1 : 0,
  status: options.status ?? null,
  limit: options.limit ?? -1,
});

/** Sessions, newest `started_at` first. */
export async function listSessions(db: TraceSql, options: ListSessionsOptions = {}): Promise<SessionRow[]> {
  return db.all<SessionRow>(LIST_SESSIONS_SQL, sessionParams(options));
}

/**
 * The same rows as {@link listSessions}, as one JSON array text built by the database itself:
 * for large listings this avoids creating a JavaScript object per row.
 */
export async function listSessionsJson(db: TraceSql, options: ListSessionsOptions = {}): Promise<string> {
  const row = await db.get<{ rows: unknown }>(LIST_SESSIONS_JSON_SQL, sessionParams(options));
  // PostgreSQL's driver hands json back parsed.
  return typeof row?.rows === "string" ? row.rows : JSON.stringify(row?.rows ?? []);
}

/** The session `adwId`, or undefined. */
export async function getSession(db: TraceSql, adwId: string): Promise<SessionRow | undefined> {
  return db.get<SessionRow>(GET_SESSION_SQL, [adwId]);
}

/** The session's events by `started_at`, then id. */
export async function listEvents(
  db: TraceSql,
  adwId: string,
  options: ListEventsOptions = {},
): Promise<EventRow[]> {
  return db.all<EventRow>(LIST_EVENTS_SQL, { adwId, type: options.type ?? null, limit: options.limit ?? -1 });
}

/** The session's phases by number. */
export async function listPhases(db: TraceSql, adwId: string): Promise<PhaseRow[]> {
  return db.all<PhaseRow>(LIST_PHASES_SQL, [adwId]);
}

/** The session's journal of durable steps, every attempt, in the order they were written. */
export async function listSteps(db: TraceSql, adwId: string): Promise<StepRow[]> {
  return db.all<StepRow>(LIST_STEPS_SQL, [adwId]);
}

/** Every row of `table` by primary key. SssfError("usage") for a name that is not a trace table. */
export async function readTable<T extends TraceTable>(db: TraceSql, table: T): Promise<TraceTables[T][]> {
  if (!TRACE_TABLES.includes(table)) throw new SssfError("usage", `Unknown trace table "${String(table)}".`);
  return db.all<TraceTables[T]>(`SELECT * FROM ${table} ORDER BY ${PRIMARY_KEYS[table].join(", ")}`);
}

/** The session's envelopes (every attempt) by `created_at`, then id. */
export async function listEnvelopes(db: TraceSql, adwId: string): Promise<EnvelopeRow[]> {
  return db.all<EnvelopeRow>("SELECT * FROM envelopes WHERE adw_id = ? ORDER BY created_at, id", [adwId]);
}

/** The session's gate results by `created_at`, then id. */
export async function listGateResults(db: TraceSql, adwId: string): Promise<GateResultRow[]> {
  return db.all<GateResultRow>("SELECT * FROM gate_results WHERE adw_id = ? ORDER BY created_at, id", [
    adwId,
  ]);
}

/** The session's child processes by `started_at`, then id. */
export async function listProcesses(db: TraceSql, adwId: string): Promise<ProcessRow[]> {
  return db.all<ProcessRow>("SELECT * FROM processes WHERE adw_id = ? ORDER BY started_at, id", [adwId]);
}

/** The session's agent sessions by `created_at`, then agent. */
export async function listAgentSessions(db: TraceSql, adwId: string): Promise<AgentSessionRow[]> {
  return db.all<AgentSessionRow>("SELECT * FROM agent_sessions WHERE adw_id = ? ORDER BY created_at, agent", [
    adwId,
  ]);
}

/** The highest phase number of the session, 0 when it has no phases. */
export async function maxPhaseNumber(db: TraceSql, adwId: string): Promise<number> {
  return Number((await db.get<{ number: number }>(MAX_PHASE_NUMBER_SQL, [adwId]))?.number ?? 0);
}

/**
 * The newest envelope of a session that crossed its phase's boundary (valid, `status: "success"`,
 * every gate passed: `accepted = 1`), by phase and then by time; rows rebuilt from records older than
 * the column count by that same rule. Null when there is none: a rejoin then hands on nothing.
 */
export async function latestAcceptedEnvelope(db: TraceSql, adwId: string): Promise<object | null> {
  const row = await db.get<{ envelope_json: string }>(LATEST_ACCEPTED_ENVELOPE_SQL, [adwId]);
  return row ? (JSON.parse(row.envelope_json) as object) : null;
}

/** The session's row in the trace at `location` (opened read-only), or undefined when it or the row is missing. */
export async function readSessionRow(location: string, adwId: string): Promise<SessionRow | undefined> {
  if (!traceMayExist(location, existsSync)) return undefined;
  const store = await openTraceStore(location, { readonly: true });
  try {
    return await getSession(store, adwId);
  } finally {
    await store.close();
  }
}

/** An event row with the rowid it was (last) written at: a live tail's cursor. */
export type CursorEventRow = EventRow & { _rowid: number };

/**
 * The session's events written after rowid `after`, in write order, at most `limit` of them: every
 * write of a row (an upsert too) gives it a new, larger rowid, so these are exactly the rows written
 * since the last read (`sssf tail`).
 */
export async function listEventsAfter(
  db: TraceSql,
  adwId: string,
  after: number,
  limit = 1000,
): Promise<CursorEventRow[]> {
  const rows = await db.all<CursorEventRow>(
    "SELECT rowid AS _rowid, * FROM events WHERE adw_id = ? AND rowid > ? ORDER BY rowid LIMIT ?",
    [adwId, after, limit],
  );
  // PostgreSQL's BIGINT rowid comes back as text.
  for (const row of rows) row._rowid = Number(row._rowid);
  return rows;
}

/** The phase `id` as it stands now, or undefined. */
export async function getPhase(db: TraceSql, id: string): Promise<PhaseRow | undefined> {
  return db.get<PhaseRow>("SELECT * FROM phases WHERE id = ?", [id]);
}
