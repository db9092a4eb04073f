/**
 * The trace on PostgreSQL, behind the same {@link TraceDb} interface as SQLite: statements are sssf's
 * SQLite-dialect SQL, translated (`sql.ts`) and run synchronously (`bridge.ts`). PRAGMAs map to
 * what PostgreSQL has: `user_version` to the `sssf_schema` table, `table_info` to the catalog,
 * `data_version` to the rowid sequence; the SQLite-only tuning ones are no-ops.
 */

import { isUnavailable, unavailableError } from "../db-unavailable.js";
import type { TraceDb, TraceStatement, TransactionFunction } from "../sqlite.js";
import { displayTraceLocation } from "../trace-location.js";
import { PgBridge, type PgResult } from "./bridge.js";
import { bindSql, parseSql, ROWID_SEQUENCE, type SqlTemplate } from "./sql.js";

class PgStatement implements TraceStatement {
  #plucked = false;
  readonly #template: SqlTemplate;

  constructor(
    private readonly db: PgDb,
    sql: string,
  ) {
    this.#template = parseSql(sql);
  }

  #rows(params: unknown[]): Record<string, unknown>[] {
    const rows = this.db.run(bindSql(this.#template, params)).rows;
    for (const row of rows) delete row.rowid;
    return rows;
  }

  #shape(row: Record<string, unknown> | undefined): unknown {
    if (!this.#plucked || row === undefined) return row;
    return Object.values(row)[0];
  }

  get(...params: unknown[]): unknown {
    return this.#shape(this.#rows(params)[0]);
  }

  all(...params: unknown[]): unknown[] {
    return this.#rows(params).map((row) => this.#shape(row));
  }

  run(...params: unknown[]) {
    const result = this.db.run(bindSql(this.#template, params));
    return { changes: result.rowCount, lastInsertRowid: 0 };
  }

  *iterate(...params: unknown[]): IterableIterator<unknown> {
    yield* this.all(...params);
  }

  pluck(): TraceStatement {
    this.#plucked = true;
    return this;
  }
}

const SCHEMA_TABLE = "sssf_schema";

/** A trace database on PostgreSQL. */
export class PgDb implements TraceDb {
  readonly name: string;
  readonly readonly: boolean;
  readonly dialect = "postgres" as const;
  readonly #bridge: PgBridge;
  #depth = 0;
  #open = true;
  /** The connection broke inside the current transaction: its remaining statements must not run. */
  #broken = false;

  constructor(url: string, options: { readonly?: boolean } = {}) {
    this.name = displayTraceLocation(url);
    this.readonly = options.readonly === true;
    this.#bridge = new PgBridge(url, { readOnly: this.readonly });
  }

  get open(): boolean {
    return this.#open;
  }

  /** Runs translated SQL; the last statement's result. */
  run(sql: string): PgResult {
    if (this.#broken) throw unavailableError("the connection broke earlier in this transaction");
    try {
      const results = this.#bridge.query(sql);
      return results[results.length - 1] ?? { rows: [], rowCount: 0 };
    } catch (error) {
      // A new connection would run the rest of the transaction outside it.
      if (this.#depth > 0 && isUnavailable(error)) this.#broken = true;
      throw error;
    }
  }

  /** Creates the rowid sequence and the schema-version row, once per database. */
  bootstrap(): void {
    this.run(`BEGIN;
      SELECT pg_advisory_xact_lock(5535355);
      CREATE SEQUENCE IF NOT EXISTS ${ROWID_SEQUENCE};
      CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (version BIGINT NOT NULL);
      INSERT INTO ${SCHEMA_TABLE} (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ${SCHEMA_TABLE});
      COMMIT;`);
  }

  prepare(sql: string): TraceStatement {
    return new PgStatement(this, sql);
  }

  exec(sql: string): this {
    this.run(bindSql(parseSql(sql), []));
    return this;
  }

  pragma(text: string, options: { simple?: boolean } = {}): unknown {
    const rows = this.#pragmaRows(text.trim());
    if (options.simple !== true) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }

  #pragmaRows(text: string): Record<string, unknown>[] {
    const set = /^user_version\s*=\s*(\d+)$/i.exec(text);
    if (set) {
      this.run(`UPDATE ${SCHEMA_TABLE} SET version = ${Number(set[1])}`);
      return [];
    }
    // Inside a migration's transaction the row lock makes concurrent migrators take turns.
    if (/^user_version$/i.test(text))
      return this.run(
        `SELECT version AS user_version FROM ${SCHEMA_TABLE}${this.#depth > 0 ? " FOR UPDATE" : ""}`,
      ).rows;
    const info = /^table_info\((\w+)\)$/i.exec(text);
    if (info)
      return this.run(
        `SELECT column_name AS name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = '${(info[1] as string).toLowerCase()}'
           AND column_name <> 'rowid'
         ORDER BY ordinal_position`,
      ).rows;
    if (/^data_version$/i.test(text))
      return this.run(`SELECT last_value AS data_version FROM ${ROWID_SEQUENCE}`).rows;
    // journal_mode, busy_timeout, synchronous, wal_checkpoint: SQLite's file tuning, nothing to do here.
    return [];
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F): TransactionFunction<F> {
    const wrapped = ((...args: never[]) => {
      const nested = this.#depth > 0;
      const savepoint = `sssf_${this.#depth}`;
      this.run(nested ? `SAVEPOINT ${savepoint}` : "BEGIN");
      this.#depth += 1;
      let result: unknown;
      try {
        result = fn(...args);
        // `fn` may have caught the error of a statement whose connection broke.
        if (this.#broken) throw unavailableError("the connection broke during the transaction");
      } catch (error) {
        this.#depth -= 1;
        this.#rollback(nested, savepoint, error);
        throw error;
      }
      this.#depth -= 1;
      // A failed COMMIT rolls the transaction back on the server.
      this.run(nested ? `RELEASE SAVEPOINT ${savepoint}` : "COMMIT");
      return result;
    }) as F;
    return Object.assign(wrapped, { deferred: wrapped, immediate: wrapped, exclusive: wrapped });
  }

  #rollback(nested: boolean, savepoint: string, error: unknown): void {
    if (!nested) {
      const broken = this.#broken || isUnavailable(error);
      this.#broken = false;
      // A broken connection took its transaction with it.
      if (broken) return;
    } else if (this.#broken) return;
    try {
      this.run(nested ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` : "ROLLBACK");
    } catch {
      // The rollback's own failure adds nothing to the error being thrown.
    }
  }

  close(): this {
    if (this.#open) {
      this.#open = false;
      this.#bridge.close();
    }
    return this;
  }
}
