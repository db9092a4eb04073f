/**
 * The trace on a SQLite file, through `node:sqlite`. Its calls are synchronous and short; the store
 * hands their results back as Promises so that every caller is written against one interface with
 * the PostgreSQL store. A transaction holds the connection: statements from elsewhere in the process
 * wait for it to end instead of landing inside it.
 */

import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { SssfError } from "../../errors/sssf-error.js";
import type { TraceRecord } from "../events.js";
import type { RunResult, SessionWaker, SqlParams, TraceSql, TraceStore } from "../store.js";
import { upsertPlan } from "../upsert-plan.js";
import {
  BUSY_TIMEOUT_MS,
  type NodeSqliteDatabase,
  type NodeSqliteStatement,
  nodeSqliteCutsAtNul,
  readableText,
  sqliteModule,
} from "./driver.js";

/** Options of {@link openSqliteStore}. */
export interface OpenSqliteStoreOptions {
  readonly?: boolean;
  /** Refuse, naming the file, when it does not exist (implied by `readonly`). */
  fileMustExist?: boolean;
}

/** `params` as node:sqlite binds them: an array spread, an object as named values. */
function bind(params: SqlParams | undefined): unknown[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return nodeSqliteCutsAtNul() ? params.map(readableText) : [...params];
  if (!nodeSqliteCutsAtNul()) return [params];
  const named: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) named[key] = readableText(value);
  return [named];
}

/** The SQL surface on one node:sqlite connection: what the store and its transactions share. */
class SqliteSql implements TraceSql {
  constructor(
    protected readonly db: NodeSqliteDatabase,
    private readonly statements: Map<string, NodeSqliteStatement>,
    private readonly depth: number,
  ) {}

  /** True while another caller's transaction holds the connection (checked and then run in one turn). */
  protected locked(): boolean {
    return false;
  }

  /** Settles when the transaction holding the connection ends. */
  protected async waitTurn(): Promise<void> {}

  /** Throws when the connection is closed. */
  protected checkOpen(): void {}

  #statement(sql: string): NodeSqliteStatement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    while (this.locked()) await this.waitTurn();
    this.checkOpen();
    return this.#statement(sql).all(...bind(params)) as T[];
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    while (this.locked()) await this.waitTurn();
    this.checkOpen();
    return (this.#statement(sql).get(...bind(params)) ?? undefined) as T | undefined;
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    while (this.locked()) await this.waitTurn();
    this.checkOpen();
    return { changes: Number(this.#statement(sql).run(...bind(params)).changes) };
  }

  async exec(sql: string): Promise<void> {
    while (this.locked()) await this.waitTurn();
    this.checkOpen();
    this.db.exec(sql);
  }

  async pragma(text: string, options: { simple?: boolean } = {}): Promise<unknown> {
    while (this.locked()) await this.waitTurn();
    this.checkOpen();
    const rows = this.db.prepare(`PRAGMA ${text}`).all();
    if (options.simple !== true) return rows;
    const first = rows[0] as Record<string, unknown> | undefined;
    return first === undefined ? undefined : Object.values(first)[0];
  }

  async upsert(records: readonly TraceRecord[]): Promise<void> {
    while (this.locked()) await this.waitTurn();
    this.checkOpen();
    for (const { sql, values } of upsertPlan(records)) this.#statement(sql).run(...bind(values));
  }

  async transaction<T>(fn: (tx: TraceSql) => Promise<T>): Promise<T> {
    while (this.locked()) await this.waitTurn();
    this.checkOpen();
    return this.inTransaction(fn);
  }

  /** `fn` in a transaction (a savepoint below the top), on this connection as it is now. */
  protected async inTransaction<T>(fn: (tx: TraceSql) => Promise<T>): Promise<T> {
    const nested = this.depth > 0;
    const savepoint = `sssf_${this.depth}`;
    this.db.exec(nested ? `SAVEPOINT ${savepoint}` : "BEGIN IMMEDIATE");
    try {
      const result = await fn(new SqliteSql(this.db, this.statements, this.depth + 1));
      this.db.exec(nested ? `RELEASE ${savepoint}` : "COMMIT");
      return result;
    } catch (error) {
      if (nested) this.db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      else if (this.db.isTransaction !== false) this.db.exec("ROLLBACK");
      throw error;
    }
  }
}

/** A SQLite trace: one connection, its transactions taking turns with every other statement. */
export class SqliteStore extends SqliteSql implements TraceStore {
  readonly dialect = "sqlite" as const;
  #closed = false;
  /** Settles when the transaction in progress (if any) ends. */
  #turn: Promise<unknown> = Promise.resolve();
  #inTransaction = false;

  constructor(
    db: NodeSqliteDatabase,
    readonly name: string,
    readonly readonly: boolean,
  ) {
    super(db, new Map(), 0);
  }

  get isOpen(): boolean {
    return !this.#closed;
  }

  protected override locked(): boolean {
    return this.#inTransaction;
  }

  protected override async waitTurn(): Promise<void> {
    await this.#turn.catch(() => undefined);
  }

  protected override checkOpen(): void {
    if (this.#closed) throw new SssfError("internal", `trace database ${this.name} used after close`);
  }

  override async transaction<T>(fn: (tx: TraceSql) => Promise<T>): Promise<T> {
    while (this.locked()) await this.waitTurn();
    this.checkOpen();
    // Claimed in the same turn as the check: no other statement starts in between.
    this.#inTransaction = true;
    const running = this.inTransaction(fn);
    this.#turn = running;
    try {
      return await running;
    } finally {
      this.#inTransaction = false;
    }
  }

  /** SQLite tells no one of a commit: the follower reads again every `pollMs`. */
  async follow(): Promise<SessionWaker> {
    return { wait: (pollMs) => sleep(pollMs, "timeout" as const), close: async () => {} };
  }

  async close(): Promise<void> {
    while (this.locked()) await this.waitTurn();
    if (this.#closed) return;
    this.#closed = true;
    this.db.close();
  }
}

/**
 * Opens the SQLite file `file` (created when missing, unless `readonly`), its busy timeout set before
 * any statement reads the file. Throws SssfError("usage") naming the file when `readonly` and it is
 * missing, and what node:sqlite throws otherwise (a folder, no permission, not a database).
 */
export function openSqliteStore(file: string, options: OpenSqliteStoreOptions = {}): SqliteStore {
  const readonly = options.readonly === true;
  if ((readonly || options.fileMustExist === true) && file !== ":memory:" && !existsSync(file))
    throw new SssfError("usage", `unable to open database file: ${file} does not exist`);
  const db = new (sqliteModule().DatabaseSync)(file, { readOnly: readonly });
  try {
    // node:sqlite waits for no lock by default: a second process's WAL recovery would fail the next statement.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteStore(db, file, readonly);
}
