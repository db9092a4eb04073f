/**
 * The trace schema's history: the columns and tables each version added, the statements that create
 * them, and the error for a database that is not an sssf trace. store-schema.ts migrates and checks.
 */

import { SssfError } from "../errors/index.js";
import { TABLE_COLUMNS } from "./columns.js";
import { PRIMARY_KEYS, type TraceTable } from "./events.js";

/** Session columns added by migration 2 (where a run worked: its worktree and branch). */
export const V2_SESSION_COLUMNS = ["worktree", "branch", "base_ref", "checkout"] as const;

/** Envelope columns added by migration 3 (which envelope crossed its phase's boundary). */
export const V3_ENVELOPE_COLUMNS = ["accepted"] as const;

/** Columns added by migration 4: who runs a session, which phases a resume replayed. */
export const V4_COLUMNS: { readonly [T in TraceTable]?: readonly string[] } = {
  sessions: ["pid", "host"],
  phases: ["replayed_at"],
};

/** Tables created by a later migration than the first. */
const LATER_TABLES: readonly TraceTable[] = ["steps"];

/** Columns a table had when it was created: later migrations add the rest with ALTER TABLE. */
function createdColumns(table: TraceTable): [string, string][] {
  const added: readonly string[] = [
    ...(table === "sessions" ? V2_SESSION_COLUMNS : table === "envelopes" ? V3_ENVELOPE_COLUMNS : []),
    ...(V4_COLUMNS[table] ?? []),
  ];
  return Object.entries(TABLE_COLUMNS[table]).filter(([name]) => !added.includes(name));
}

/**
 * The columns `table` has in a database at schema `version` (its creation's, then each later
 * migration's), or null when the table does not exist at that version.
 */
export function columnsAt(table: TraceTable, version: number): [string, string][] | null {
  if (version < 1 || (LATER_TABLES.includes(table) && version < 4)) return null;
  if (LATER_TABLES.includes(table)) return Object.entries(TABLE_COLUMNS[table]);
  const added = new Set<string>([
    ...(version >= 2 && table === "sessions" ? V2_SESSION_COLUMNS : []),
    ...(version >= 3 && table === "envelopes" ? V3_ENVELOPE_COLUMNS : []),
    ...(version >= 4 ? (V4_COLUMNS[table] ?? []) : []),
  ]);
  const all = Object.entries(TABLE_COLUMNS[table]) as [string, string][];
  const created = new Set(createdColumns(table).map(([name]) => name));
  return all.filter(([name]) => created.has(name) || added.has(name));
}

export function createTableSql(
  table: TraceTable,
  columnList = createdColumns(table),
  ifNotExists = false,
): string {
  const columns = columnList.map(([name, declaration]) => `  ${name} ${declaration}`);
  columns.push(`  PRIMARY KEY (${PRIMARY_KEYS[table].join(", ")})`);
  return `CREATE TABLE ${ifNotExists ? "IF NOT EXISTS " : ""}${table} (\n${columns.join(",\n")}\n);`;
}

export const V1_INDEXES = [
  "CREATE INDEX idx_events_adw_started ON events (adw_id, started_at);",
  "CREATE INDEX idx_events_phase ON events (phase_id);",
  "CREATE INDEX idx_phases_adw_number ON phases (adw_id, number);",
  "CREATE INDEX idx_envelopes_adw ON envelopes (adw_id);",
  "CREATE INDEX idx_gate_results_adw ON gate_results (adw_id);",
  "CREATE INDEX idx_processes_adw ON processes (adw_id);",
  "CREATE INDEX idx_sessions_started ON sessions (started_at);",
];

/** Sets `accepted` on envelope rows that predate it (null), by the rule the engine now records. */
export const ACCEPTED_BACKFILL = `UPDATE envelopes SET accepted = CASE WHEN valid = 1 AND status = 'success'
  AND NOT EXISTS (SELECT 1 FROM gate_results g WHERE g.envelope_id = envelopes.id AND g.ok = 0) THEN 1 ELSE 0 END
  WHERE accepted IS NULL;`;

export function ifNotExists(createIndex: string): string {
  return createIndex.replace("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ");
}

/**
 * A trace location that holds something other than an sssf trace: not a SQLite database, or tables
 * of another shape (the original Python SSSF's, another program's). Exit 2; the file is left as it is.
 */
export class ForeignTraceError extends SssfError {
  /** `not_sqlite`: its bytes are not a SQLite database (another file, or a trace damaged past reading). */
  readonly kind: "not_sqlite" | "foreign_tables";

  constructor(location: string, what: string, postgres: boolean, kind: ForeignTraceError["kind"]) {
    const elsewhere = postgres
      ? "point trace.url or SSSF_DB at another database, or move those tables to another schema"
      : "move it aside (then sssf db rebuild recreates the trace from the session files), or point sssf at another file with --db PATH, SSSF_DB or observability.db in the config";
    super("usage", `trace database ${location} ${what}; it was left unchanged: ${elsewhere}`);
    this.name = "ForeignTraceError";
    this.kind = kind;
  }
}

/** What the shape check (store-schema.ts) found in a database that holds (part of) an sssf trace. */
export interface TraceShape {
  /** Its schema version (0: nothing was ever completed). */
  version: number;
  /** sssf tables that should be there at `version` (or at version 1, for 0) and are not. */
  missing: TraceTable[];
}

/** Names for a message: the first three, then how many more. */
export function someOf(names: readonly string[]): string {
  return names.length <= 3
    ? names.join(", ")
    : `${names.slice(0, 3).join(", ")} and ${names.length - 3} more`;
}
