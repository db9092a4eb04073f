/**
 * The one SQLite API sssf uses, over Node's built-in `node:sqlite` (Node 22.13+, nothing to compile):
 * prepared statements with positional binding and `pluck`, `pragma`, nested `transaction`.
 */

import { existsSync } from "node:fs";
import { SssfError } from "../errors/sssf-error.js";

/** A bound parameter: positional values, or one object of named values (`@name` without the `@`). */
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

interface NodeSqliteStatement {
  get(...params: Param[]): unknown;
  all(...params: Param[]): unknown[];
  run(...params: Param[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: Param[]): IterableIterator<unknown>;
  columns?(): { name: string }[];
}

interface NodeSqliteDatabase {
  prepare(sql: string): NodeSqliteStatement;
  exec(sql: string): void;
  close(): void;
  readonly isOpen?: boolean;
  readonly isTransaction?: boolean;
}

type NodeSqliteModule = {
  DatabaseSync: new (file: string, options?: { readOnly?: boolean; open?: boolean }) => NodeSqliteDatabase;
};

/** `node:sqlite` without its ExperimentalWarning (Node 22 prints one on first load), or null. */
function loadNodeSqlite(): NodeSqliteModule | null {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof getBuiltin !== "function") return null;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/SQLite is an experimental feature/i.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const loaded = getBuiltin.call(process, "node:sqlite") as NodeSqliteModule | undefined;
    return loaded && typeof loaded.DatabaseSync === "function" ? loaded : null;
  } catch {
    return null;
  } finally {
    process.emitWarning = emitWarning;
  }
}

let nodeSqlite: NodeSqliteModule | undefined;

/** node:sqlite, loaded on first use. Throws SssfError("usage") on a Node without it (before 22.13). */
function sqliteModule(): NodeSqliteModule {
  nodeSqlite ??=
    loadNodeSqlite() ??
    (() => {
      throw new SssfError(
        "usage",
        `Node ${process.version} has no node:sqlite: sssf needs Node 22.13 or later (node --version)`,
      );
    })();
  return nodeSqlite;
}

let cutsAtNul: boolean | undefined;

/**
 * True when this Node's node:sqlite reads text back only up to its first NUL character (Node 22: it
 * stores the whole text but converts it as a C string; Node 24 reads it whole). There a NUL in a
 * value sssf stores becomes U+FFFD, as on PostgreSQL, so that what follows it stays readable (the
 * session files keep the original). Asked once per process, of an in-memory database.
 */
export function nodeSqliteCutsAtNul(): boolean {
  if (cutsAtNul === undefined) {
    {
      const db = new (sqliteModule().DatabaseSync)(":memory:");
      try {
        const row = db.prepare("SELECT 'a' || char(0) || 'b' AS text").get() as { text?: unknown };
        cutsAtNul = row.text !== "a\0b";
      } finally {
        db.close();
      }
    }
  }
  return cutsAtNul;
}

/** `value` as this Node's node:sqlite can read it back: NUL as U+FFFD where reads stop at one. */
function readableText(value: Param): Param {
  return typeof value === "string" && value.includes("\0") ? value.replaceAll("\0", "\uFFFD") : value;
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
 * How long a connection waits for another process's lock before SQLITE_BUSY: many runs at once on a
 * loaded machine wait rather than fail.
 */
export const BUSY_TIMEOUT_MS = 30_000;

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

/** SQLite's primary result codes by number, for node:sqlite's numeric `errcode`. */
const PRIMARY_CODES: Readonly<Record<number, string>> = {
  1: "ERROR",
  5: "BUSY",
  6: "LOCKED",
  7: "NOMEM",
  8: "READONLY",
  10: "IOERR",
  11: "CORRUPT",
  13: "FULL",
  14: "CANTOPEN",
  18: "TOOBIG",
  19: "CONSTRAINT",
  20: "MISMATCH",
  21: "MISUSE",
  26: "NOTADB",
};

/**
 * The SQLite result code of an error (`SQLITE_BUSY`…; node:sqlite gives the primary code only), or undefined for an error
 * that is not SQLite's. Never throws.
 */
export function sqliteErrorCode(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof code === "string" && code.startsWith("SQLITE_")) return code;
  if (typeof errcode === "number") return `SQLITE_${PRIMARY_CODES[errcode & 0xff] ?? String(errcode & 0xff)}`;
  return undefined;
}
