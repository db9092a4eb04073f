/**
 * The trace on PostgreSQL through `pg`, asynchronously: a small pool of connections, each statement
 * awaited. Statements arrive in sssf's SQLite dialect and are translated by `sql.ts`; PRAGMAs map to
 * what PostgreSQL has: `user_version` to the `sssf_schema` table, `table_info` to the catalog,
 * `data_version` to the rowid sequence; SQLite's file tuning is a no-op. A connection that is lost
 * fails its statement with {@link DB_UNAVAILABLE} (retry later); the pool connects again by itself.
 */

import type { Pool, PoolClient, QueryResult } from "pg";
import { SssfError } from "../../errors/sssf-error.js";
import { DB_UNAVAILABLE } from "../db-unavailable.js";
import type { TraceRecord } from "../events.js";
import type { RunResult, SessionWaker, SqlParams, TraceSql, TraceStore } from "../store.js";
import { displayTraceLocation } from "../trace-location.js";
import { upsertPlan } from "../upsert-plan.js";
import { EVENTS_CHANNEL, followSession } from "./pg-listener.js";
import { acquirePool, postgresTraceSettings, releasePool } from "./pg-shared.js";
import { bindSql, parseSql, ROWID_SEQUENCE, type SqlTemplate, sqlLiteral } from "./sql.js";

const SCHEMA_TABLE = "sssf_schema";
/** SQLSTATE classes of a connection lost or refused, and the server shutting down. */
const LOST = /^(08|57P0[1-3])/;

/** `error` as the trace reports it: a lost connection carries DB_UNAVAILABLE, a SQL error its SQLSTATE. */
function translateError(error: unknown): Error {
  const cause = error instanceof Error ? error : new Error(String(error));
  const code = (cause as { code?: unknown }).code;
  if (code === DB_UNAVAILABLE) return cause;
  return Object.assign(cause, { code: isLost(cause) ? DB_UNAVAILABLE : code, sqlState: code });
}

/** A connection lost or refused (no SQLSTATE, a connection-class SQLSTATE, a socket error), not a statement's error. */
function isLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code !== "string" || LOST.test(code) || /^E[A-Z]+$/.test(code);
}

const templates = new Map<string, SqlTemplate>();

/** `sql` with `params` as PostgreSQL text (parsed once per SQL text). */
function translate(sql: string, params: SqlParams | undefined): string {
  let template = templates.get(sql);
  if (template === undefined) {
    template = parseSql(sql);
    if (templates.size > 2000) templates.clear();
    templates.set(sql, template);
  }
  const list = params === undefined ? [] : Array.isArray(params) ? params : [params];
  return bindSql(template, list);
}

/** Something that runs a query: the pool, or one client inside a transaction. */
type Runner = { query(text: string): Promise<QueryResult | QueryResult[]> };

/** The SQL surface over one runner: the pool (each statement on any connection) or a transaction's client. */
class PgSql implements TraceSql {
  constructor(
    protected readonly runner: () => Runner,
    private readonly depth: number,
  ) {}

  /** Runs PostgreSQL text; the last statement's result. */
  protected async query(text: string): Promise<QueryResult> {
    let result: QueryResult | QueryResult[];
    try {
      result = await this.runner().query(text);
    } catch (error) {
      throw translateError(error);
    }
    const list = Array.isArray(result) ? result : [result];
    return list[list.length - 1] ?? ({ rows: [], rowCount: 0 } as unknown as QueryResult);
  }

  async #rows(sql: string, params?: SqlParams): Promise<Record<string, unknown>[]> {
    const rows = (await this.query(translate(sql, params))).rows as Record<string, unknown>[];
    for (const row of rows) delete row.rowid;
    return rows;
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    return (await this.#rows(sql, params)) as T[];
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.#rows(sql, params))[0] as T | undefined;
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    return { changes: (await this.query(translate(sql, params))).rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    await this.query(translate(sql, undefined));
  }

  /**
   * Upserts, then notifies the followers of every session the records belong to: inside a transaction
   * PostgreSQL delivers the NOTIFY at its commit (and never for a rollback), one per session.
   */
  async upsert(records: readonly TraceRecord[]): Promise<void> {
    for (const { sql, values } of upsertPlan(records)) await this.query(translate(sql, values));
    const sessions = new Set<string>();
    for (const record of records) sessions.add(record.row.adw_id);
    if (sessions.size > 0)
      await this.query(
        `SELECT pg_notify('${EVENTS_CHANNEL}', id) FROM (VALUES ${[...sessions].map((id) => `(${sqlLiteral(id)})`).join(", ")}) AS s(id)`,
      );
  }

  async pragma(text: string, options: { simple?: boolean } = {}): Promise<unknown> {
    const rows = await this.#pragmaRows(text.trim());
    if (options.simple !== true) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }

  async #pragmaRows(text: string): Promise<Record<string, unknown>[]> {
    const set = /^user_version\s*=\s*(\d+)$/i.exec(text);
    if (set) {
      await this.query(`UPDATE ${SCHEMA_TABLE} SET version = ${Number(set[1])}`);
      return [];
    }
    // Inside a migration's transaction the row lock makes concurrent migrators take turns.
    if (/^user_version$/i.test(text))
      return (
        await this.query(
          `SELECT version AS user_version FROM ${SCHEMA_TABLE}${this.depth > 0 ? " FOR UPDATE" : ""}`,
        )
      ).rows;
    const info = /^table_info\((\w+)\)$/i.exec(text);
    if (info)
      return (
        await this.query(
          `SELECT column_name AS name FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name = '${(info[1] as string).toLowerCase()}'
             AND column_name <> 'rowid'
           ORDER BY ordinal_position`,
        )
      ).rows;
    if (/^data_version$/i.test(text))
      return (await this.query(`SELECT last_value AS data_version FROM ${ROWID_SEQUENCE}`)).rows;
    // journal_mode, busy_timeout, synchronous, wal_checkpoint: SQLite's file tuning, nothing to do here.
    return [];
  }

  async transaction<T>(fn: (tx: TraceSql) => Promise<T>): Promise<T> {
    if (this.depth === 0) throw new SssfError("internal", "a PostgreSQL transaction needs its own client");
    const savepoint = `sssf_${this.depth}`;
    await this.query(`SAVEPOINT ${savepoint}`);
    try {
      const result = await fn(new PgSql(this.runner, this.depth + 1));
      await this.query(`RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (error) {
      await this.query(`ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`).catch(() => {});
      throw error;
    }
  }
}

/**
 * A PostgreSQL trace, on the process's shared pool for its URL (`pg-shared.ts`). A read-only one runs
 * every statement in a read-only transaction, so writes are refused as SQLite's read-only connections
 * refuse them.
 */
export class PgStore extends PgSql implements TraceStore {
  readonly dialect = "postgres" as const;
  readonly name: string;
  readonly readonly: boolean;
  readonly #pool: Pool;
  readonly #url: string;
  #open = true;

  /** `url`: a `postgres://` URL; the password may come from PGPASSWORD or ~/.pgpass instead. */
  constructor(url: string, options: { readonly?: boolean; connectTimeoutMs?: number } = {}) {
    const readonly = options.readonly === true;
    const pool = acquirePool(url, { connectTimeoutMs: options.connectTimeoutMs ?? 3000 });
    super(() => this.#usable(), 0);
    this.#pool = pool;
    this.name = displayTraceLocation(url);
    this.readonly = readonly;
    this.#url = url;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  #usable(): Runner {
    if (!this.#open) throw new SssfError("internal", `trace database ${this.name} used after close`);
    return { query: (text) => this.#onOwnConnection(text) };
  }

  /**
   * Runs `text` on a connection of the pool, taken first: a connection that cannot be had at all
   * (refused, a database not accepting connections now, whatever its SQLSTATE) is out of reach, so
   * the caller retries; an error of the statement itself keeps its own code.
   */
  async #onOwnConnection(text: string): Promise<QueryResult | QueryResult[]> {
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw Object.assign(translateError(error), { code: DB_UNAVAILABLE });
    }
    let lost = false;
    try {
      if (!this.readonly) return await client.query(text);
      // Read-only on the shared pool: in a read-only transaction, in the same round trip.
      const body = text.trim().replace(/;+$/, "");
      const results = (await client.query(`BEGIN READ ONLY;\n${body};\nCOMMIT`)) as unknown as QueryResult[];
      const own = results.slice(1, -1);
      return own.length === 1 ? (own[0] as QueryResult) : own;
    } catch (error) {
      lost = isLost(error);
      // A failed statement left its read-only transaction open (aborted): end it before the next user.
      if (this.readonly && !lost) await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release(lost);
    }
  }

  /** Creates the rowid sequence and the schema-version row, once per database. */
  async bootstrap(): Promise<void> {
    await this.transaction(async (tx) => {
      await tx.exec(`SELECT pg_advisory_xact_lock(5535355);
        CREATE SEQUENCE IF NOT EXISTS ${ROWID_SEQUENCE};
        CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (version BIGINT NOT NULL);
        INSERT INTO ${SCHEMA_TABLE} (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ${SCHEMA_TABLE})`);
    });
  }

  override async transaction<T>(fn: (tx: TraceSql) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      // No connection at all (refused, a database not accepting connections now): out of reach, retry later.
      throw Object.assign(translateError(error), { code: DB_UNAVAILABLE });
    }
    let broken = false;
    const onError = () => {
      broken = true;
    };
    client.on("error", onError);
    const tx = new PgSql(() => client as unknown as Runner, 1);
    try {
      await client.query(this.readonly ? "BEGIN READ ONLY" : "BEGIN").catch((error: unknown) => {
        throw translateError(error);
      });
      const result = await fn(tx);
      await client.query("COMMIT").catch((error: unknown) => {
        throw translateError(error);
      });
      return result;
    } catch (error) {
      const lost = broken || (error as { code?: unknown }).code === DB_UNAVAILABLE;
      // A lost connection took its transaction with it.
      if (!lost) await client.query("ROLLBACK").catch(() => {});
      broken ||= lost;
      throw error;
    } finally {
      client.off("error", onError);
      client.release(broken ? true : undefined);
    }
  }

  /** Woken by the writers' NOTIFY, on the LISTEN connection of `trace.postgres.listen_url` or this URL. */
  follow(adwId: string): Promise<SessionWaker> {
    return followSession(postgresTraceSettings().listenUrl ?? this.#url, adwId);
  }

  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await releasePool(this.#pool);
  }
}
