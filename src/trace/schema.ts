import { SssfError } from "../errors/index.js";
import { TABLE_COLUMNS } from "./columns.js";
import { PRIMARY_KEYS, TRACE_TABLES, type TraceTable } from "./events.js";
import { sqliteErrorCode, type TraceDb } from "./sqlite.js";

type Migration = (db: TraceDb) => void;

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

/**
 * Migrations in order; migration i brings the database to `user_version` i + 1.
 * Only append: a released migration never changes (tables gain columns, never rename them).
 */
const MIGRATIONS: readonly Migration[] = [
  (db) => {
    // IF NOT EXISTS: a first run killed mid-creation (before the version bump) may have left some.
    const v1Tables = TRACE_TABLES.filter((table) => !LATER_TABLES.includes(table));
    db.exec(
      [
        ...v1Tables.map((table) => createTableSql(table, createdColumns(table), true)),
        ...V1_INDEXES.map(ifNotExists),
      ].join("\n"),
    );
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

/** What {@link checkTraceShape} found in a database that holds (part of) an sssf trace. */
export interface TraceShape {
  /** Its schema version (0: nothing was ever completed). */
  version: number;
  /** sssf tables that should be there at `version` (or at version 1, for 0) and are not. */
  missing: TraceTable[];
}

/** Table name → its column names, as the database has them (SQLite's own tables left out). */
function tablesIn(db: TraceDb): Map<string, Set<string>> {
  const names =
    db.dialect === "postgres"
      ? (db
          .prepare(
            // pg_catalog, not information_schema: its views cost ~100 ms a query, on every open.
            "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')",
          )
          .pluck()
          .all() as string[])
      : (db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
          )
          .pluck()
          .all() as string[]);
  const tables = new Map<string, Set<string>>();
  for (const name of names) tables.set(name, new Set());
  return tables;
}

function columnsOf(db: TraceDb, table: string): Set<string> {
  return new Set((db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name));
}

const KNOWN_TABLES: ReadonlySet<string> = new Set<string>(TRACE_TABLES);

/** Names for a message: the first three, then how many more. */
export function someOf(names: readonly string[]): string {
  return names.length <= 3
    ? names.join(", ")
    : `${names.slice(0, 3).join(", ")} and ${names.length - 3} more`;
}

/**
 * Tells whether `db` holds an sssf trace (of this or an older schema, whole or half-made) without
 * writing to it: its version, and the sssf tables missing. Throws {@link ForeignTraceError} when it
 * is not a SQLite database, holds a table sssf does not write (SQLite only: a PostgreSQL database may
 * hold other programs' tables), or an sssf table whose columns are not sssf's at its version; and
 * SssfError("usage") when a newer sssf wrote it.
 */
export function checkTraceShape(db: TraceDb): TraceShape {
  const postgres = db.dialect === "postgres";
  const foreign = (what: string, kind: ForeignTraceError["kind"] = "foreign_tables") =>
    new ForeignTraceError(db.name, what, postgres, kind);
  let version: number;
  let tables: Map<string, Set<string>>;
  try {
    tables = tablesIn(db);
    // PostgreSQL keeps the version in a table of sssf's own, made when the trace is first opened.
    version =
      postgres && !tables.has("sssf_schema") ? 0 : (db.pragma("user_version", { simple: true }) as number);
  } catch (error) {
    if (sqliteErrorCode(error) === "SQLITE_NOTADB") throw foreign("is not a SQLite database", "not_sqlite");
    throw error;
  }
  if (version > SCHEMA_VERSION) {
    throw new SssfError(
      "usage",
      `Trace database ${db.name} has schema version ${version}, newer than this sssf supports ` +
        `(${SCHEMA_VERSION}); upgrade sssf or rebuild the database with it.`,
    );
  }
  const others = [...tables.keys()].filter((name) => !KNOWN_TABLES.has(name));
  if (!postgres && others.length > 0)
    throw foreign(`is not an sssf trace (it holds table${others.length === 1 ? "" : "s"} ${someOf(others)})`);
  // Fast path of every open: the current schema with every table there.
  if (version === SCHEMA_VERSION && TRACE_TABLES.every((table) => tables.has(table)))
    return { version, missing: [] };
  const missing: TraceTable[] = [];
  for (const table of TRACE_TABLES) {
    // Version 0 is a first run killed before its tables were committed: what migration 1 creates.
    const expected = columnsAt(table, Math.max(version, 1));
    if (!tables.has(table)) {
      if (expected) missing.push(table);
      continue;
    }
    const has = columnsOf(db, table);
    const required = (expected ?? Object.entries(TABLE_COLUMNS[table])).map(([name]) => name);
    const lacking = required.filter((name) => !has.has(name));
    const allowed = new Set(Object.keys(TABLE_COLUMNS[table]));
    const extra = [...has].filter((name) => !allowed.has(name));
    if (lacking.length > 0 || extra.length > 0) {
      const parts = [
        ...(lacking.length > 0 ? [`lacks column${lacking.length === 1 ? "" : "s"} ${someOf(lacking)}`] : []),
        ...(extra.length > 0 ? [`has column${extra.length === 1 ? "" : "s"} ${someOf(extra)}`] : []),
      ];
      throw foreign(`is not an sssf trace (its table ${table} ${parts.join(" and ")})`);
    }
  }
  return { version, missing };
}

/** Creates the tables `missing` with the columns of `version` (and their indexes). */
function createMissing(db: TraceDb, missing: readonly TraceTable[], version: number): void {
  const statements: string[] = [];
  for (const table of missing) {
    const columns = columnsAt(table, version);
    if (columns !== null) statements.push(createTableSql(table, columns, true));
  }
  if (statements.length === 0) return;
  statements.push(...V1_INDEXES.map(ifNotExists));
  if (version >= 4)
    statements.push("CREATE INDEX IF NOT EXISTS idx_steps_adw_attempt ON steps (adw_id, attempt);");
  db.exec(statements.join("\n"));
}

/**
 * Brings `db` to the current trace schema, applying the missing migrations in order, each in its own
 * IMMEDIATE transaction together with its `PRAGMA user_version` bump, so concurrent openers and crashes
 * never leave a half-migrated database.
 * The sssf tables a half-made database lacks (a first run killed while creating them, a table lost)
 * are created first, as the database's version had them.
 * Contract: idempotent. Throws {@link ForeignTraceError} (before writing anything) when the database is
 * not an sssf trace (`checkTraceShape`), SssfError("usage") when a newer sssf wrote it, and rethrows
 * SQLite errors.
 */
export function migrate(db: TraceDb): void {
  const shape = checkTraceShape(db);
  const readVersion = (): number => db.pragma("user_version", { simple: true }) as number;
  // A half-made database of an older version: its missing tables first, as that version had them.
  if (shape.version >= 1 && shape.missing.length > 0)
    db.transaction(() => createMissing(db, shape.missing, shape.version)).immediate();
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
