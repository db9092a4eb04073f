import { existsSync } from "node:fs";
import { SssfError } from "../errors/index.js";
import { openTraceDb } from "./database.js";
import {
  type AgentSessionRow,
  type EnvelopeRow,
  type EventRow,
  type GateResultRow,
  type PhaseRow,
  PRIMARY_KEYS,
  type ProcessRow,
  type SessionRow,
  type StepRow,
  TRACE_TABLES,
  type TraceTable,
  type TraceTables,
} from "./events.js";
import type { TraceDb } from "./sqlite.js";
import { cachedStatement } from "./statement-cache.js";
import {
  GET_SESSION_SQL,
  LATEST_ACCEPTED_ENVELOPE_SQL,
  LIST_EVENTS_SQL,
  LIST_PHASES_SQL,
  LIST_SESSIONS_SQL,
  LIST_STEPS_SQL,
  type ListEventsOptions,
  type ListSessionsOptions,
  MAX_PHASE_NUMBER_SQL,
} from "./store-queries.js";

export type { ListEventsOptions, ListSessionsOptions } from "./store-queries.js";

import { traceMayExist } from "./trace-location.js";

// The synchronous twins of store-queries.ts's reads, on the same SQL, for the callers that still hold a
// TraceDb (the engine, and tests); they go with TraceDb. Every helper below runs one cached statement and throws only what SQLite throws (a closed database,
// a database without the trace schema).

/** Sessions, newest `started_at` first. */
export function listSessions(db: TraceDb, options: ListSessionsOptions = {}): SessionRow[] {
  return cachedStatement(db, LIST_SESSIONS_SQL).all({
    includeArchived: options.includeArchived === true ? 1 : 0,
    status: options.status ?? null,
    limit: options.limit ?? -1,
  }) as SessionRow[];
}

/** The session `adwId`, or undefined when there is none. */
export function getSession(db: TraceDb, adwId: string): SessionRow | undefined {
  return cachedStatement(db, GET_SESSION_SQL).get(adwId) as SessionRow | undefined;
}

/** The session's phases by number. */
export function listPhases(db: TraceDb, adwId: string): PhaseRow[] {
  return cachedStatement(db, LIST_PHASES_SQL).all(adwId) as PhaseRow[];
}

/** The session's events by `started_at`, then id. */
export function listEvents(db: TraceDb, adwId: string, options: ListEventsOptions = {}): EventRow[] {
  return cachedStatement(db, LIST_EVENTS_SQL).all({
    adwId,
    type: options.type ?? null,
    limit: options.limit ?? -1,
  }) as EventRow[];
}

/** The session's envelopes (every attempt) by `created_at`, then id. */
export function listEnvelopes(db: TraceDb, adwId: string): EnvelopeRow[] {
  const sql = "SELECT * FROM envelopes WHERE adw_id = ? ORDER BY created_at, id";
  return cachedStatement(db, sql).all(adwId) as EnvelopeRow[];
}

/** The session's gate results by `created_at`, then id. */
export function listGateResults(db: TraceDb, adwId: string): GateResultRow[] {
  const sql = "SELECT * FROM gate_results WHERE adw_id = ? ORDER BY created_at, id";
  return cachedStatement(db, sql).all(adwId) as GateResultRow[];
}

/** The session's child processes by `started_at`, then id. */
export function listProcesses(db: TraceDb, adwId: string): ProcessRow[] {
  const sql = "SELECT * FROM processes WHERE adw_id = ? ORDER BY started_at, id";
  return cachedStatement(db, sql).all(adwId) as ProcessRow[];
}

/** The session's agent sessions by `created_at`, then agent. */
export function listAgentSessions(db: TraceDb, adwId: string): AgentSessionRow[] {
  const sql = "SELECT * FROM agent_sessions WHERE adw_id = ? ORDER BY created_at, agent";
  return cachedStatement(db, sql).all(adwId) as AgentSessionRow[];
}

/** The highest phase number of the session, 0 when it has no phases. */
export function maxPhaseNumber(db: TraceDb, adwId: string): number {
  return (cachedStatement(db, MAX_PHASE_NUMBER_SQL).get(adwId) as { number: number }).number;
}

/**
 * Every row of `table` ordered by primary key, for comparing databases.
 * Throws SssfError("usage") for a name that is not a trace table.
 */
export function readTable<T extends TraceTable>(db: TraceDb, table: T): TraceTables[T][] {
  if (!TRACE_TABLES.includes(table)) throw new SssfError("usage", `Unknown trace table "${String(table)}".`);
  const sql = `SELECT * FROM ${table} ORDER BY ${PRIMARY_KEYS[table].join(", ")}`;
  return cachedStatement(db, sql).all() as TraceTables[T][];
}

/**
 * The newest envelope of a session that crossed its phase's boundary (valid, `status: "success"`,
 * every gate passed: `accepted = 1`), by phase and then by time; rows rebuilt from records older than
 * the column count by that same rule. Null when there is none: a rejoin then hands on nothing.
 */
export function latestAcceptedEnvelope(db: TraceDb, adwId: string): object | null {
  const row = cachedStatement(db, LATEST_ACCEPTED_ENVELOPE_SQL).get(adwId) as
    | { envelope_json: string }
    | undefined;
  return row ? (JSON.parse(row.envelope_json) as object) : null;
}

/** The session's row in the db at `dbPath` (opened read-only), or undefined when the db or the row is missing. */
export function readSessionRow(dbPath: string, adwId: string): SessionRow | undefined {
  if (!traceMayExist(dbPath, existsSync)) return undefined;
  const db = openTraceDb(dbPath, { readonly: true });
  try {
    return getSession(db, adwId);
  } finally {
    db.close();
  }
}

/** The session's journal of durable steps, every attempt, in the order they were written. */
export function listSteps(db: TraceDb, adwId: string): StepRow[] {
  return cachedStatement(db, LIST_STEPS_SQL).all(adwId) as StepRow[];
}
