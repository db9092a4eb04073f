/**
 * The trace's one storage interface: every read and write returns a Promise. Two implementations,
 * SQLite on `node:sqlite` (`sqlite/sqlite-store.ts`) and PostgreSQL on `pg` (`postgres/pg-store.ts`);
 * `openTraceStore` (open-store.ts) picks one by the location. Statements are written in SQLite's
 * dialect; the PostgreSQL store translates them (`postgres/sql.ts`), the one place the dialects differ.
 */

import type { TraceRecord } from "./events.js";

/** Bound values: positional (`?`), or one object of named values (`@name`, given without the `@`). */
export type SqlParams = readonly unknown[] | Readonly<Record<string, unknown>>;

/** What a write statement changed. */
export interface RunResult {
  changes: number;
}

/** The statements a store runs, inside a transaction or not. */
export interface TraceSql {
  /** Every row `sql` returns. */
  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  /** The first row `sql` returns, or undefined. */
  get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /** Runs one write statement. */
  run(sql: string, params?: SqlParams): Promise<RunResult>;
  /** Runs statements without parameters (DDL, several separated by `;`). */
  exec(sql: string): Promise<void>;
  /**
   * `PRAGMA <text>` as SQLite reads it (`user_version`, `table_info(t)`, `data_version`…; PostgreSQL
   * answers the ones the trace uses and ignores SQLite's file tuning): the rows, or with `simple` the
   * first column of the first row.
   */
  pragma(text: string, options?: { simple?: boolean }): Promise<unknown>;
  /**
   * Upserts `records` (`INSERT OR REPLACE` by primary key) in their order, in multi-row statements: a
   * later record with the same key replaces an earlier one. Opens no transaction of its own. Throws
   * SssfError("usage") for an unknown table, and what the database throws (nothing of a failed
   * statement is stored: retry the records one by one to store the others).
   */
  upsert(records: readonly TraceRecord[]): Promise<void>;
  /**
   * Runs `fn` in a transaction (a savepoint when nested in `fn`'s own `tx`): committed when it
   * resolves, rolled back when it throws. On SQLite it takes the write lock at once (`BEGIN
   * IMMEDIATE`); other statements of the same store wait until it ends.
   */
  transaction<T>(fn: (tx: TraceSql) => Promise<T>): Promise<T>;
}

/** A follower's wake-up for one session (`TraceStore.follow`). */
export interface SessionWaker {
  /**
   * Resolves when the session may have new rows: on PostgreSQL at its next NOTIFY (at once when one
   * came since the last call; at the latest after a 5 s safety poll, or `pollMs` while the LISTEN
   * connection is down); on SQLite after `pollMs`. Says which.
   */
  wait(pollMs: number): Promise<"notified" | "timeout">;
  /** Stops following. Idempotent. */
  close(): Promise<void>;
}

/** A trace database, open. The caller closes it. */
export interface TraceStore extends TraceSql {
  /** Where it is: the file, or the URL without its password. */
  readonly name: string;
  readonly dialect: "sqlite" | "postgres";
  /** Opened for reading only: writes are refused by the database. */
  readonly readonly: boolean;
  readonly isOpen: boolean;
  /** Starts following session `adwId`'s writes (close the waker before the store). */
  follow(adwId: string): Promise<SessionWaker>;
  /** Closes the connection(s); statements after it are refused. Idempotent. */
  close(): Promise<void>;
}

/** The first column of each row (SQLite's `pluck`). */
export function firstColumn<T>(rows: readonly Record<string, unknown>[]): T[] {
  return rows.map((row) => Object.values(row)[0] as T);
}
