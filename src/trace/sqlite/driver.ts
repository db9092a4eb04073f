/**
 * Node's built-in `node:sqlite` (Node 22.13+, nothing to compile): loaded once without its
 * ExperimentalWarning, the NUL handling of Node 22, the busy timeout and SQLite's error codes.
 */

import { SssfError } from "../../errors/sssf-error.js";

/** A bound parameter: positional values, or one object of named values (`@name` without the `@`). */
export type Param = unknown;

export interface NodeSqliteStatement {
  get(...params: Param[]): unknown;
  all(...params: Param[]): unknown[];
  run(...params: Param[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...params: Param[]): IterableIterator<unknown>;
  columns?(): { name: string }[];
}

export interface NodeSqliteDatabase {
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
export function sqliteModule(): NodeSqliteModule {
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
export function readableText(value: Param): Param {
  return typeof value === "string" && value.includes("\0") ? value.replaceAll("\0", "\uFFFD") : value;
}

/**
 * How long a connection waits for another process's lock before SQLITE_BUSY: many runs at once on a
 * loaded machine wait rather than fail.
 */
export const BUSY_TIMEOUT_MS = 30_000;

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
