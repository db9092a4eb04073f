/**
 * The trace schema on a {@link TraceStore}: the shape check that refuses a foreign database and the
 * migrations, each in its own transaction with its version bump (schema.ts holds the tables' history).
 */

import { SssfError } from "../errors/index.js";
import { TABLE_COLUMNS } from "./columns.js";
import { TRACE_TABLES, type TraceTable } from "./events.js";
import {
  ACCEPTED_BACKFILL,
  columnsAt,
  createTableSql,
  ForeignTraceError,
  ifNotExists,
  someOf,
  type TraceShape,
  V1_INDEXES,
  V2_SESSION_COLUMNS,
  V4_COLUMNS,
} from "./schema.js";
import { sqliteErrorCode } from "./sqlite/driver.js";
import { firstColumn, type TraceSql, type TraceStore } from "./store.js";

type Migration = (tx: TraceSql) => Promise<void>;

const LATER_TABLES: readonly TraceTable[] = ["steps"];

async function columnsOf(db: TraceSql, table: string): Promise<Set<string>> {
  return new Set(((await db.pragma(`table_info(${table})`)) as { name: string }[]).map((c) => c.name));
}

/**
 * Migration i brings the database to version i + 1. Only append: a released migration never changes
 * (tables gain columns, never rename them).
 */
const MIGRATIONS: readonly Migration[] = [
  async (tx) => {
    const v1Tables = TRACE_TABLES.filter((table) => !LATER_TABLES.includes(table));
    await tx.exec(
      [
        ...v1Tables.map((table) => createTableSql(table, undefined, true)),
        ...V1_INDEXES.map(ifNotExists),
      ].join("\n"),
    );
  },
  async (tx) => {
    for (const column of V2_SESSION_COLUMNS)
      await tx.exec(`ALTER TABLE sessions ADD COLUMN ${column} ${TABLE_COLUMNS.sessions[column]};`);
  },
  async (tx) => {
    if (!(await columnsOf(tx, "envelopes")).has("accepted"))
      await tx.exec(`ALTER TABLE envelopes ADD COLUMN accepted ${TABLE_COLUMNS.envelopes.accepted};`);
    await tx.exec(ACCEPTED_BACKFILL);
  },
  async (tx) => {
    for (const [table, columns] of Object.entries(V4_COLUMNS) as [TraceTable, readonly string[]][]) {
      const declared = TABLE_COLUMNS[table] as Readonly<Record<string, string>>;
      const has = await columnsOf(tx, table);
      for (const column of columns.filter((name) => !has.has(name)))
        await tx.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declared[column]};`);
    }
    await tx.exec(createTableSql("steps").replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"));
    await tx.exec("CREATE INDEX IF NOT EXISTS idx_steps_adw_attempt ON steps (adw_id, attempt);");
  },
];

/** Schema version this build of sssf writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Table names in the database (SQLite's own left out). */
async function tablesIn(db: TraceStore): Promise<Set<string>> {
  const rows =
    db.dialect === "postgres"
      ? // pg_catalog, not information_schema: its views cost ~100 ms a query, on every open.
        await db.all(
          "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')",
        )
      : await db.all(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        );
  return new Set(firstColumn<string>(rows));
}

/** Tables beside the trace's in the same database: the cluster workers' run leases (src/cluster/run-lease.ts). */
const SIDE_TABLES = ["sssf_run_leases"];
const KNOWN_TABLES: ReadonlySet<string> = new Set<string>([...TRACE_TABLES, ...SIDE_TABLES]);

/**
 * Tells whether `db` holds an sssf trace (of this or an older schema, whole or half-made) without
 * writing to it. Throws {@link ForeignTraceError} naming the database when it is not a SQLite
 * database, holds a table sssf does not write (SQLite only), or an sssf table of other columns; and
 * SssfError("usage") when a newer sssf wrote it.
 */
export async function checkStoreShape(db: TraceStore): Promise<TraceShape> {
  const postgres = db.dialect === "postgres";
  const foreign = (what: string, kind: ForeignTraceError["kind"] = "foreign_tables") =>
    new ForeignTraceError(db.name, what, postgres, kind);
  let version: number;
  let tables: Set<string>;
  try {
    tables = await tablesIn(db);
    version =
      postgres && !tables.has("sssf_schema") ? 0 : Number(await db.pragma("user_version", { simple: true }));
  } catch (error) {
    if (sqliteErrorCode(error) === "SQLITE_NOTADB") throw foreign("is not a SQLite database", "not_sqlite");
    throw error;
  }
  if (version > SCHEMA_VERSION)
    throw new SssfError(
      "usage",
      `Trace database ${db.name} has schema version ${version}, newer than this sssf supports ` +
        `(${SCHEMA_VERSION}); upgrade sssf or rebuild the database with it.`,
    );
  const others = [...tables].filter((name) => !KNOWN_TABLES.has(name));
  if (!postgres && others.length > 0)
    throw foreign(`is not an sssf trace (it holds table${others.length === 1 ? "" : "s"} ${someOf(others)})`);
  if (version === SCHEMA_VERSION && TRACE_TABLES.every((table) => tables.has(table)))
    return { version, missing: [] };
  const missing: TraceTable[] = [];
  for (const table of TRACE_TABLES) {
    const expected = columnsAt(table, Math.max(version, 1));
    if (!tables.has(table)) {
      if (expected) missing.push(table);
      continue;
    }
    const has = await columnsOf(db, table);
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
async function createMissing(tx: TraceSql, missing: readonly TraceTable[], version: number): Promise<void> {
  const statements: string[] = [];
  for (const table of missing) {
    const columns = columnsAt(table, version);
    if (columns !== null) statements.push(createTableSql(table, columns, true));
  }
  if (statements.length === 0) return;
  statements.push(...V1_INDEXES.map(ifNotExists));
  if (version >= 4)
    statements.push("CREATE INDEX IF NOT EXISTS idx_steps_adw_attempt ON steps (adw_id, attempt);");
  await tx.exec(statements.join("\n"));
}

/**
 * Brings `db` to the current schema: a half-made database's missing tables first, then each missing
 * migration in its own transaction with its version bump (concurrent openers and crashes never leave
 * it half-migrated). Idempotent. Throws what {@link checkStoreShape} throws before writing anything.
 */
export async function migrateStore(db: TraceStore): Promise<void> {
  const shape = await checkStoreShape(db);
  const readVersion = async (tx: TraceSql) => Number(await tx.pragma("user_version", { simple: true }));
  if (shape.version >= 1 && shape.missing.length > 0)
    await db.transaction((tx) => createMissing(tx, shape.missing, shape.version));
  while ((await readVersion(db)) < SCHEMA_VERSION) {
    await db.transaction(async (tx) => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      const version = await readVersion(tx);
      const migration = MIGRATIONS[version];
      if (migration === undefined) return;
      await migration(tx);
      await tx.pragma(`user_version = ${version + 1}`);
    });
  }
}
