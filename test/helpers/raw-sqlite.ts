/**
 * A trace file read or planted as plain SQLite rows, past sssf's store: for tests that look at what a
 * run left on disk, or plant an older or foreign schema. node:sqlite through the driver's loader (no
 * ExperimentalWarning on Node 22).
 */

import { PRIMARY_KEYS, type TraceTable, type TraceTables } from "../../src/trace/events.js";
import { BUSY_TIMEOUT_MS, type NodeSqliteDatabase, sqliteModule } from "../../src/trace/sqlite/driver.js";

export type RawSqlite = NodeSqliteDatabase;

/** `file` opened with node:sqlite, waiting for other processes' locks as sssf does. */
export function openRawSqlite(file: string, options: { readonly?: boolean } = {}): RawSqlite {
  const db = new (sqliteModule().DatabaseSync)(file, { readOnly: options.readonly === true });
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

/** The first column of the first row `sql` returns, or undefined. */
export function scalar(db: RawSqlite, sql: string, ...params: unknown[]): unknown {
  const row = db.prepare(sql).get(...params) as Record<string, unknown> | undefined;
  return row === undefined ? undefined : Object.values(row)[0];
}

/** The rows of `PRAGMA <text>`. */
export function pragmaRows<T = Record<string, unknown>>(db: RawSqlite, text: string): T[] {
  return db.prepare(`PRAGMA ${text}`).all() as T[];
}

/** The first column of the first row of `PRAGMA <text>`. */
export function pragmaValue(db: RawSqlite, text: string): unknown {
  return scalar(db, `PRAGMA ${text}`);
}

/** Every row of trace table `table` by primary key, as another process would read it. */
export function readRows<T extends TraceTable>(db: RawSqlite, table: T): TraceTables[T][] {
  return db
    .prepare(`SELECT * FROM ${table} ORDER BY ${PRIMARY_KEYS[table].join(", ")}`)
    .all() as TraceTables[T][];
}
