import { SssfError } from "../errors/index.js";
import { TABLE_COLUMNS } from "./columns.js";
import { PRIMARY_KEYS, TRACE_TABLES, type TraceTable } from "./events.js";
import type { TraceDb } from "./sqlite.js";

type Migration = (db: TraceDb) => void;

/** Session columns added by migration 2 (where a run worked: its worktree and branch). */
const V2_SESSION_COLUMNS = ["worktree", "branch", "base_ref", "checkout"] as const;

/** Envelope columns added by migration 3 (which envelope crossed its phase's boundary). */
const V3_ENVELOPE_COLUMNS = ["accepted"] as const;

/** Columns added by migration 4: who runs a session, which phases a resume replayed. */
const V4_COLUMNS: { readonly [T in TraceTable]?: readonly string[] } = {
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

function createTableSql(table: TraceTable): string {
  const columns = createdColumns(table).map(([name, declaration]) => `  ${name} ${declaration}`);
  columns.push(`  PRIMARY KEY (${PRIMARY_KEYS[table].join(", ")})`);
  return `CREATE TABLE ${table} (\n${columns.join(",\n")}\n);`;
}

const V1_INDEXES = [
  "CREATE INDEX idx_events_adw_started ON events (adw_id, started_at);",
  "CREATE INDEX idx_events_phase ON events (phase_id);",
  "CREATE INDEX idx_phases_adw_number ON phases (adw_id, number);",
  "CREATE INDEX idx_envelopes_adw ON envelopes (adw_id);",
  "CREATE INDEX idx_gate_results_adw ON gate_results (adw_id);",
  "CREATE INDEX idx_processes_adw ON processes (adw_id);",
  "CREATE INDEX idx_sessions_started ON sessions (started_at);",
];

/** Sets `accepted` on envelope rows that predate it (null), by the rule the engine now records. */
const ACCEPTED_BACKFILL = `UPDATE envelopes SET accepted = CASE WHEN valid = 1 AND status = 'success'
  AND NOT EXISTS (SELECT 1 FROM gate_results g WHERE g.envelope_id = envelopes.id AND g.ok = 0) THEN 1 ELSE 0 END
  WHERE accepted IS NULL;`;

/**
 * Migrations in order; migration i brings the database to `user_version` i + 1.
 * Only append: a released migration never changes (tables gain columns, never rename them).
 */
const MIGRATIONS: readonly Migration[] = [
  (db) => {
    const v1Tables = TRACE_TABLES.filter((table) => !LATER_TABLES.includes(table));
    db.exec([...v1Tables.map(createTableSql), ...V1_INDEXES].join("\n"));
  },
  (db) => {
    for (const column of V2_SESSION_COLUMNS) {
      db.exec(`ALTER TABLE sessions ADD COLUMN ${column} ${TABLE_COLUMNS.sessions[column]};`);
    }
  },
  (db) => {
    const has = (db.pragma("table_info(envelopes)") as { name: string }[]).some((c) => c.name === "accepted");
    if (!has) db.exec(`ALTER TABLE envelopes ADD COLUMN accepted ${TABLE_COLUMNS.envelopes.accepted};`);
    // Earlier rows: accepted when valid, a success, and no gate failed on them.
    db.exec(ACCEPTED_BACKFILL);
  },
  (db) => {
    for (const [table, columns] of Object.entries(V4_COLUMNS) as [TraceTable, readonly string[]][]) {
      const declared = TABLE_COLUMNS[table] as Readonly<Record<string, string>>;
      const has = new Set((db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name));
      for (const column of columns.filter((name) => !has.has(name)))
        db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declared[column]};`);
    }
    db.exec(createTableSql("steps").replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"));
    db.exec("CREATE INDEX IF NOT EXISTS idx_steps_adw_attempt ON steps (adw_id, attempt);");
  },
];

/** Schema version this build of sssf writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `db` to the current trace schema, applying the missing migrations in order, each in its own
 * IMMEDIATE transaction together with its `PRAGMA user_version` bump, so concurrent openers and crashes
 * never leave a half-migrated database.
 * Contract: idempotent. Throws SssfError("usage") when the database was written by a newer sssf;
 * rethrows SQLite errors (for example a foreign table of the same name) with the database unchanged.
 */
export function migrate(db: TraceDb): void {
  const readVersion = (): number => db.pragma("user_version", { simple: true }) as number;
  if (readVersion() > SCHEMA_VERSION) {
    throw new SssfError(
      "usage",
      `Trace database ${db.name} has schema version ${readVersion()}, newer than this sssf supports ` +
        `(${SCHEMA_VERSION}); upgrade sssf or rebuild the database with it.`,
    );
  }
  while (readVersion() < SCHEMA_VERSION) {
    db.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      const version = readVersion();
      const migration = MIGRATIONS[version];
      if (migration === undefined) return;
      migration(db);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
