import type { TraceTable, TraceTables } from "./events.js";

/** SQLite declaration of one column: storage class, plus NOT NULL when the wire type has no `null`. */
export type ColumnDeclaration =
  | "TEXT"
  | "TEXT NOT NULL"
  | "INTEGER"
  | "INTEGER NOT NULL"
  | "REAL"
  | "REAL NOT NULL";

// The declaration a column may have, derived from its wire type so the compiler rejects drift from events.ts.
type DeclarationFor<V> = [V] extends [string]
  ? "TEXT NOT NULL"
  : [V] extends [string | null]
    ? "TEXT"
    : [V] extends [number]
      ? "INTEGER NOT NULL" | "REAL NOT NULL"
      : [V] extends [number | null]
        ? "INTEGER" | "REAL"
        : never;

type TableColumns<T extends TraceTable> = {
  readonly [K in keyof TraceTables[T] & string]-?: DeclarationFor<TraceTables[T][K]>;
};

/**
 * Column declarations of the trace tables, in the field order of the row types in events.ts.
 * Contract: the keys are exactly the row fields (checked at compile time); the order is the column order
 * of the tables and of the upsert statements.
 */
export const TABLE_COLUMNS: { readonly [T in TraceTable]: TableColumns<T> } = {
  sessions: {
    adw_id: "TEXT NOT NULL",
    workflow: "TEXT NOT NULL",
    request: "TEXT NOT NULL",
    status: "TEXT NOT NULL",
    accepted: "INTEGER",
    reason: "TEXT",
    cwd: "TEXT NOT NULL",
    started_at: "TEXT NOT NULL",
    ended_at: "TEXT",
    duration_ms: "INTEGER",
    input_tokens: "INTEGER NOT NULL",
    output_tokens: "INTEGER NOT NULL",
    cache_read_tokens: "INTEGER NOT NULL",
    cache_write_tokens: "INTEGER NOT NULL",
    cost_usd: "REAL NOT NULL",
    archived: "INTEGER NOT NULL",
    worktree: "TEXT",
    branch: "TEXT",
    base_ref: "TEXT",
    checkout: "TEXT",
    pid: "INTEGER",
    host: "TEXT",
  },
  phases: {
    id: "TEXT NOT NULL",
    adw_id: "TEXT NOT NULL",
    number: "INTEGER NOT NULL",
    name: "TEXT NOT NULL",
    kind: "TEXT NOT NULL",
    owner: "TEXT NOT NULL",
    description: "TEXT NOT NULL",
    status: "TEXT NOT NULL",
    started_at: "TEXT NOT NULL",
    ended_at: "TEXT",
    duration_ms: "INTEGER",
    error: "TEXT",
    input_tokens: "INTEGER NOT NULL",
    output_tokens: "INTEGER NOT NULL",
    cache_read_tokens: "INTEGER NOT NULL",
    cache_write_tokens: "INTEGER NOT NULL",
    cost_usd: "REAL NOT NULL",
    context_tokens: "INTEGER",
    replayed_at: "TEXT",
  },
  events: {
    id: "TEXT NOT NULL",
    adw_id: "TEXT NOT NULL",
    phase_id: "TEXT",
    parent_id: "TEXT",
    type: "TEXT NOT NULL",
    name: "TEXT NOT NULL",
    agent: "TEXT",
    ok: "INTEGER",
    started_at: "TEXT NOT NULL",
    ended_at: "TEXT",
    duration_ms: "INTEGER",
    payload: "TEXT NOT NULL",
  },
  envelopes: {
    id: "TEXT NOT NULL",
    adw_id: "TEXT NOT NULL",
    phase_id: "TEXT NOT NULL",
    agent: "TEXT NOT NULL",
    attempt: "INTEGER NOT NULL",
    reason: "TEXT NOT NULL",
    output_type: "TEXT NOT NULL",
    valid: "INTEGER NOT NULL",
    status: "TEXT",
    envelope_json: "TEXT",
    raw_text: "TEXT NOT NULL",
    errors: "TEXT NOT NULL",
    created_at: "TEXT NOT NULL",
    accepted: "INTEGER",
  },
  gate_results: {
    id: "TEXT NOT NULL",
    adw_id: "TEXT NOT NULL",
    phase_id: "TEXT NOT NULL",
    envelope_id: "TEXT NOT NULL",
    gate: "TEXT NOT NULL",
    ok: "INTEGER NOT NULL",
    checks: "TEXT NOT NULL",
    violations: "TEXT NOT NULL",
    created_at: "TEXT NOT NULL",
  },
  processes: {
    id: "TEXT NOT NULL",
    adw_id: "TEXT NOT NULL",
    phase_id: "TEXT",
    agent: "TEXT",
    pid: "INTEGER NOT NULL",
    command: "TEXT NOT NULL",
    cwd: "TEXT NOT NULL",
    status: "TEXT NOT NULL",
    exit_code: "INTEGER",
    signal: "TEXT",
    started_at: "TEXT NOT NULL",
    ended_at: "TEXT",
    stderr_tail: "TEXT",
  },
  agent_sessions: {
    adw_id: "TEXT NOT NULL",
    agent: "TEXT NOT NULL",
    session_id: "TEXT NOT NULL",
    model: "TEXT NOT NULL",
    coding_agent: "TEXT NOT NULL",
    sends: "INTEGER NOT NULL",
    created_at: "TEXT NOT NULL",
    updated_at: "TEXT NOT NULL",
  },
  steps: {
    id: "TEXT NOT NULL",
    adw_id: "TEXT NOT NULL",
    attempt: "INTEGER NOT NULL",
    key: "TEXT NOT NULL",
    position: "INTEGER NOT NULL",
    phase_id: "TEXT NOT NULL",
    op: "TEXT NOT NULL",
    input_hash: "TEXT NOT NULL",
    result_json: "TEXT NOT NULL",
    replayed: "INTEGER NOT NULL",
    created_at: "TEXT NOT NULL",
  },
};

/** Column names of `table` in declaration order. Never throws. */
export function columnNames(table: TraceTable): string[] {
  return Object.keys(TABLE_COLUMNS[table]);
}
