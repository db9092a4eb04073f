import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { SssfError } from "../errors/index.js";
import { columnNames } from "./columns.js";
import { TRACE_TABLES, type TraceRecord, type TraceTable } from "./events.js";
import { migrate } from "./schema.js";

/** Options of {@link openTraceDb}. */
export interface OpenTraceDbOptions {
  /** Open for reading only: no directory creation, no migration, and the file must already exist. */
  readonly?: boolean;
}

/**
 * Opens (creating when needed) the trace database at `dbPath`: WAL journal so readers never block the
 * writer, `busy_timeout=5000`, `synchronous=NORMAL`, and the schema migrated to the current version.
 * Contract: throws SssfError("usage") naming the path when `readonly` is set and the file is missing;
 * otherwise throws what SQLite or the file system throw. The caller owns and closes the connection.
 * @example
 * const db = openTraceDb("adws/adw_data/sssf.db");
 */
export function openTraceDb(dbPath: string, options: OpenTraceDbOptions = {}): Database.Database {
  if (options.readonly === true) {
    if (!existsSync(dbPath)) {
      throw new SssfError(
        "usage",
        `Trace database not found: ${dbPath} (run a workflow first, or rebuild it from the session files).`,
      );
    }
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    return db;
  }
  mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const db = new Database(dbPath);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.pragma("synchronous = NORMAL");
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

const KNOWN_TABLES: ReadonlySet<string> = new Set(TRACE_TABLES);

function upsertSql(table: TraceTable): string {
  const columns = columnNames(table);
  const parameters = columns.map((column) => `@${column}`);
  return `INSERT OR REPLACE INTO ${table} (${columns.join(", ")}) VALUES (${parameters.join(", ")})`;
}

/** A copy of `row` with every declared column present (missing ones as null), for records from older files. */
function withAllColumns(table: TraceTable, row: object): Record<string, unknown> {
  const source = row as Record<string, unknown>;
  const filled: Record<string, unknown> = {};
  for (const column of columnNames(table)) filled[column] = source[column] ?? null;
  return filled;
}

/**
 * Returns a function that upserts one record (`INSERT OR REPLACE` by primary key) using one cached
 * prepared statement per table with named parameters. Fields a row lacks are written as null.
 * Contract: does not open a transaction (wrap calls in one for speed); throws SssfError("usage") for an
 * unknown table and rethrows SQLite errors (busy, constraint, bad value type) unchanged.
 */
export function createUpserter(db: Database.Database): (record: TraceRecord) => void {
  const statements = new Map<TraceTable, Database.Statement>();
  const statementFor = (table: TraceTable): Database.Statement => {
    let statement = statements.get(table);
    if (statement === undefined) {
      if (!KNOWN_TABLES.has(table)) {
        throw new SssfError("usage", `Unknown trace table "${String(table)}" in a trace record.`);
      }
      statement = db.prepare(upsertSql(table));
      statements.set(table, statement);
    }
    return statement;
  };
  return (record) => {
    const statement = statementFor(record.table);
    try {
      statement.run(record.row);
    } catch (error) {
      // Only the rare record written before a column existed pays for the copy.
      if (!(error instanceof RangeError) || !error.message.startsWith("Missing named parameter")) throw error;
      statement.run(withAllColumns(record.table, record.row));
    }
  };
}
