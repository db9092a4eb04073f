import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { SssfError } from "../errors/index.js";
import { upsertSql } from "./batch-upsert.js";
import { columnNames } from "./columns.js";
import { isUnavailable } from "./db-unavailable.js";
import { TRACE_TABLES, type TraceRecord, type TraceTable } from "./events.js";
import { PgDb } from "./postgres/pg-db.js";
import { checkTraceShape, migrate, SCHEMA_VERSION } from "./schema.js";
import { openSqlite, type TraceDb, type TraceStatement } from "./sqlite.js";
import { isPostgresUrl } from "./trace-location.js";

/** Options of {@link openTraceDb}. */
export interface OpenTraceDbOptions {
  /**
   * Open for reading only: no directory creation, and the file must already exist. An older or
   * half-made trace is migrated first (through a writable connection) unless `asIs` is set.
   */
  readonly?: boolean;
  /** With `readonly`: the file as it is, neither checked nor migrated (the caller copes with any schema). */
  asIs?: boolean;
}

/**
 * Opens (creating when needed) the trace database at `dbPath`: WAL journal so readers never block the
 * writer, `busy_timeout=30000` (set by `openSqlite` before anything else: many runs at once on a loaded machine wait rather than fail), `synchronous=NORMAL`, and the schema migrated to the current version.
 * Contract: throws SssfError("usage") naming the path when `readonly` is set and the file is missing,
 * or when the file cannot be created or opened (a folder, no permission); otherwise (migrating) throws
 * what SQLite throws. The caller owns and closes the connection.
 * @example
 * const db = openTraceDb("adws/adw_data/sssf.db");
 */
export function openTraceDb(dbPath: string, options: OpenTraceDbOptions = {}): TraceDb {
  if (isPostgresUrl(dbPath)) return openPostgresTrace(dbPath, options);
  if (options.readonly === true) {
    if (!existsSync(dbPath)) {
      throw new SssfError(
        "usage",
        `Trace database not found: ${dbPath} (run a workflow first, or rebuild it from the session files).`,
      );
    }
    const db = openSqlite(dbPath, { readonly: true, fileMustExist: true });
    return options.asIs === true ? db : upToDate(db, dbPath, options);
  }
  const db = openWritable(dbPath);
  try {
    // The shape first: a foreign file is refused before anything (the WAL switch included) writes to it.
    checkTraceShape(db);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * `db`, opened read-only, when it holds the current schema whole; else (an older sssf's, a half-made
 * one) migrated through a writable connection first and opened again. Throws what `checkTraceShape`
 * throws (a foreign database) with `db` closed, and SssfError("usage") when it cannot be migrated.
 */
function upToDate(db: TraceDb, dbPath: string, options: OpenTraceDbOptions): TraceDb {
  let shape: ReturnType<typeof checkTraceShape>;
  try {
    shape = checkTraceShape(db);
  } catch (error) {
    db.close();
    throw error;
  }
  if (shape.version === SCHEMA_VERSION && shape.missing.length === 0) return db;
  db.close();
  try {
    openTraceDb(dbPath).close();
  } catch (error) {
    if (error instanceof SssfError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new SssfError(
      "usage",
      `trace database ${db.name} has schema version ${shape.version} and needs migrating to ${SCHEMA_VERSION}, which failed: ${why}; run any sssf command with write access to it once`,
      { cause: error },
    );
  }
  return openTraceDb(dbPath, options);
}

/** The SQLite file at `dbPath` opened for writing, its folder created; SssfError("usage") naming it when it cannot be. */
function openWritable(dbPath: string): TraceDb {
  try {
    mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
    return openSqlite(dbPath);
  } catch (error) {
    if (error instanceof SssfError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new SssfError(
      "usage",
      `cannot open the trace database ${dbPath}: ${why}; point observability.db, trace.url or SSSF_DB at a file sssf may create and write`,
      { cause: error },
    );
  }
}

/**
 * A plain writable connection to an existing trace (a SQLite file or a PostgreSQL URL): no migration,
 * no journal-mode change, for a short write to rows that are there (the UI's archive flag). Throws what
 * the driver throws (a missing file, a server out of reach). The caller closes it.
 */
export function openTraceConnection(dbPath: string): TraceDb {
  return isPostgresUrl(dbPath) ? new PgDb(dbPath) : openSqlite(dbPath, { fileMustExist: true });
}

/**
 * The trace on the PostgreSQL database at `url`: the rowid sequence and schema row created and the
 * schema migrated (unless `readonly`). Throws SssfError("usage") naming the URL (without its password)
 * when the server cannot be reached or, read-only, holds no trace yet.
 */
function openPostgresTrace(url: string, options: OpenTraceDbOptions): TraceDb {
  const db = new PgDb(url, { readonly: options.readonly === true });
  try {
    if (options.readonly === true) {
      const found = db.prepare("SELECT to_regclass('sssf_schema') AS t").get() as { t: string | null };
      if (found.t === null) {
        // A database of another program's tables of sssf's names is said as such, not as "no trace yet".
        checkTraceShape(db);
        throw new SssfError(
          "usage",
          `Trace database ${db.name} holds no sssf trace yet (run a workflow first).`,
        );
      }
      return options.asIs === true ? db : upToDate(db, url, options);
    } else {
      // Its tables' shape first: a foreign database gets not even sssf's version table.
      checkTraceShape(db);
      db.bootstrap();
      migrate(db);
    }
  } catch (error) {
    db.close();
    if (isUnavailable(error))
      throw new SssfError(
        "usage",
        `Trace database ${db.name} cannot be reached: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    throw error;
  }
  return db;
}

const KNOWN_TABLES: ReadonlySet<string> = new Set(TRACE_TABLES);

interface TableUpsert {
  statement: TraceStatement;
  columns: string[];
}

/**
 * Returns a function that upserts one record (`INSERT OR REPLACE` by primary key) using one cached
 * prepared statement per table. Values bind by position in the column order of events.ts (measured
 * ~25% faster than named parameters); a field a row lacks (records from older files) is written as null.
 * Contract: does not open a transaction (wrap calls in one for speed); throws SssfError("usage") for an
 * unknown table and rethrows SQLite errors (busy, constraint, bad value type) unchanged.
 */
export function createUpserter(db: TraceDb): (record: TraceRecord) => void {
  const upserts = new Map<TraceTable, TableUpsert>();
  const upsertFor = (table: TraceTable): TableUpsert => {
    let upsert = upserts.get(table);
    if (upsert === undefined) {
      if (!KNOWN_TABLES.has(table)) {
        throw new SssfError("usage", `Unknown trace table "${String(table)}" in a trace record.`);
      }
      upsert = { statement: db.prepare(upsertSql(table)), columns: columnNames(table) };
      upserts.set(table, upsert);
    }
    return upsert;
  };
  return (record) => {
    const { statement, columns } = upsertFor(record.table);
    const row = record.row as unknown as Record<string, unknown>;
    const values = new Array<unknown>(columns.length);
    for (let i = 0; i < columns.length; i++) values[i] = row[columns[i] as string] ?? null;
    statement.run(values);
  };
}
