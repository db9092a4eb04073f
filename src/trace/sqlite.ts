/**
 * The one SQLite API sssf uses, over Node's built-in `node:sqlite` (Node 22.13+, nothing to compile):
 * prepared statements with positional binding and `pluck`, `pragma`, nested `transaction`.
 */

import { existsSync } from "node:fs";
import { SssfError } from "../errors/sssf-error.js";
import {
  BUSY_TIMEOUT_MS,
  type NodeSqliteDatabase,
  type NodeSqliteStatement,
  nodeSqliteCutsAtNul,
  readableText,
  sqliteModule,
} from "./sqlite/driver.js";

export { BUSY_TIMEOUT_MS, nodeSqliteCutsAtNul, sqliteErrorCode } from "./sqlite/driver.js";

type Param = unknown;

/** A prepared statement. */
export interface TraceStatement {
  get(...params: Param[]): unknown;
  all(...params: Param[]): unknown[];
  run(...params: Param[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: Param[]): IterableIterator<unknown>;
  /** From now on `get`, `all` and `iterate` return the first column's value instead of a row. */
  pluck(): TraceStatement;
}

/** A transaction-wrapped function, run `BEGIN` (deferred) by default or as the variant says. */
export type TransactionFunction<F extends (...args: never[]) => unknown> = F & {
  deferred: F;
  immediate: F;
  exclusive: F;
};

/** A connection to the trace database. */
export interface TraceDb {
  /** The file it was opened on. */
  readonly name: string;
  readonly open: boolean;
  readonly readonly: boolean;
  /** Set on a PostgreSQL trace (postgres/pg-db.ts); SQLite's connections leave it unset. */
  readonly dialect?: "postgres";
  prepare(sql: string): TraceStatement;
  exec(sql: string): unknown;
  /** `PRAGMA <text>`: the rows, or with `simple` the first column of the first row. */
  pragma(text: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` in BEGIN/COMMIT (ROLLBACK when it throws); nested calls use savepoints. */
  transaction<F extends (...args: never[]) => unknown>(fn: F): TransactionFunction<F>;
  close(): unknown;
}

export interface OpenSqliteOptions {
  readonly?: boolean;
  /** Refuse (with the driver's error) when the file does not exist. */
  fileMustExist?: boolean;
}

/** A statement of node:sqlite where an array binds positionally, with `pluck`. */
class NodeStatement implements TraceStatement {
  #plucked = false;
  #column: string | undefined;

  constructor(
    private readonly statement: NodeSqliteStatement,
    private readonly sql: string,
  ) {}

  #bind(params: Param[]): Param[] {
    const values = params.length === 1 && Array.isArray(params[0]) ? (params[0] as Param[]) : params;
    return nodeSqliteCutsAtNul() ? values.map(readableText) : values;
  }

  #first(row: unknown): unknown {
    if (row === undefined || row === null) return row;
    if (this.#column === undefined) {
      const names = this.statement.columns?.().map((column) => column.name);
      this.#column = names?.[0] ?? Object.keys(row as object)[0];
      if (this.#column === undefined)
        throw new SssfError("internal", `pluck() on a statement without columns: ${this.sql}`);
    }
    return (row as Record<string, unknown>)[this.#column];
  }

  get(...params: Param[]): unknown {
    const row = this.statement.get(...this.#bind(params));
    return this.#plucked ? this.#first(row) : row;
  }

  all(...params: Param[]): unknown[] {
    const rows = this.statement.all(...this.#bind(params));
    return this.#plucked ? rows.map((row) => this.#first(row)) : rows;
  }

  run(...params: Param[]) {
    return this.statement.run(...this.#bind(params));
  }

  *iterate(...params: Param[]): IterableIterator<unknown> {
    for (const row of this.statement.iterate(...this.#bind(params)))
      yield this.#plucked ? this.#first(row) : row;
  }

  pluck(): TraceStatement {
    this.#plucked = true;
    return this;
  }
}

/** A node:sqlite connection with `pragma`, nested `transaction`, `name`, `open`, `readonly`. */
class NodeDatabase implements TraceDb {
  readonly name: string;
  readonly readonly: boolean;
  #depth = 0;
  #closed = false;

  constructor(
    private readonly db: NodeSqliteDatabase,
    file: string,
    readonly_: boolean,
  ) {
    this.name = file;
    this.readonly = readonly_;
  }

  get open(): boolean {
    return !this.#closed && this.db.isOpen !== false;
  }

  prepare(sql: string): TraceStatement {
    return new NodeStatement(this.db.prepare(sql), sql);
  }

  exec(sql: string): this {
    this.db.exec(sql);
    return this;
  }

  pragma(text: string, options: { simple?: boolean } = {}): unknown {
    const statement = this.db.prepare(`PRAGMA ${text}`);
    const rows = statement.all();
    if (options.simple !== true) return rows;
    const first = rows[0] as Record<string, unknown> | undefined;
    return first === undefined ? undefined : Object.values(first)[0];
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F): TransactionFunction<F> {
    const wrap = (begin: string): F =>
      ((...args: never[]) => {
        const nested = this.#depth > 0;
        const savepoint = `sssf_${this.#depth}`;
        this.db.exec(nested ? `SAVEPOINT ${savepoint}` : begin);
        this.#depth += 1;
        try {
          const result = fn(...args);
          this.#depth -= 1;
          this.db.exec(nested ? `RELEASE ${savepoint}` : "COMMIT");
          return result;
        } catch (error) {
          this.#depth -= 1;
          if (nested) this.db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
          else if (this.db.isTransaction !== false) this.db.exec("ROLLBACK");
          throw error;
        }
      }) as F;
    const deferred = wrap("BEGIN");
    return Object.assign(deferred, {
      deferred,
      immediate: wrap("BEGIN IMMEDIATE"),
      exclusive: wrap("BEGIN EXCLUSIVE"),
    });
  }

  close(): this {
    if (!this.#closed) {
      this.#closed = true;
      this.db.close();
    }
    return this;
  }
}

/**
 * Opens `file` with node:sqlite. Throws SssfError("usage") when Node has no node:sqlite, and what
 * it throws (a missing file with `fileMustExist` or `readonly`, a file that is not a database).
 */
export function openSqlite(file: string, options: OpenSqliteOptions = {}): TraceDb {
  const readonly = options.readonly === true;
  if ((options.fileMustExist === true || readonly) && file !== ":memory:" && !existsSync(file))
    throw new SssfError("usage", `unable to open database file: ${file} does not exist`);
  const { DatabaseSync } = sqliteModule();
  const db: TraceDb = new NodeDatabase(new DatabaseSync(file, { readOnly: readonly }), file, readonly);
  // First, before any statement that reads the file: node:sqlite waits for no lock by default (a second
  // process's WAL recovery or checkpoint fails the next statement with "database is locked"). A connection-level pragma: it takes no lock itself.
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
