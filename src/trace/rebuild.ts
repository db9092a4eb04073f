import { existsSync, readdirSync, renameSync } from "node:fs";
import path from "node:path";
import { SssfError } from "../errors/index.js";
import { createUpserter, openTraceDb } from "./database.js";
import { TRACE_TABLES, type TraceRecord } from "./events.js";
import { readLinesSync } from "./jsonl-lines.js";
import { redactRecord } from "./redact-record.js";
import { checkTraceShape, ForeignTraceError } from "./schema.js";
import { openSqlite, sqliteErrorCode } from "./sqlite.js";
import { isPostgresUrl } from "./trace-location.js";

/** Options of {@link rebuildDatabase}. */
export interface RebuildOptions {
  /** Directory holding one `<adw_id>/events.jsonl` per session. */
  sessionsDir: string;
  /** Database to (re)create; an existing one is kept as `<dbPath>.bak-<timestamp>`. */
  dbPath: string;
}

/** What {@link rebuildDatabase} did. */
export interface RebuildResult {
  /** Session directories that had an events.jsonl. */
  sessions: number;
  /** Lines stored (each an upsert, so a row rewritten three times counts three). */
  records: number;
  /** Lines that were not a storable record (malformed, truncated by a crash, unknown table, bad row). */
  skippedLines: number;
  /** Where the previous database went, or null when there was none. */
  backupPath: string | null;
}

const LINES_PER_TRANSACTION = 10_000;
const KNOWN_TABLES: ReadonlySet<string> = new Set(TRACE_TABLES);

function parseRecord(line: string): TraceRecord | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null) return undefined;
    const { table, row } = value as { table?: unknown; row?: unknown };
    if (typeof table !== "string" || !KNOWN_TABLES.has(table)) return undefined;
    if (typeof row !== "object" || row === null || Array.isArray(row)) return undefined;
    return value as TraceRecord;
  } catch {
    return undefined;
  }
}

/** A row SQLite refuses (a missing required field, a value of the wrong kind) makes a bad line, unlike I/O errors. */
function isBadRow(error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError) return true;
  // PostgreSQL: integrity (23…) and data (22…) errors.
  const sqlState = (error as { sqlState?: unknown } | null)?.sqlState;
  if (typeof sqlState === "string" && /^2[23]/.test(sqlState)) return true;
  const code = sqliteErrorCode(error);
  return code !== undefined && /^SQLITE_(?:CONSTRAINT|MISMATCH|TOOBIG)/.test(code);
}

function timestamp(): string {
  return new Date().toISOString().replace(/[-:]/g, "").replace(".", "");
}

/**
 * Throws {@link ForeignTraceError} when `dbPath` holds another program's SQLite database (the Python
 * SSSF's, say: it is never moved away from under it). A file that is not SQLite at all passes: that is
 * what a trace damaged past reading looks like, which a rebuild is for (it is moved aside, not changed).
 */
function refuseForeign(dbPath: string): void {
  if (!existsSync(dbPath)) return;
  let db: ReturnType<typeof openSqlite> | undefined;
  try {
    db = openSqlite(dbPath, { readonly: true, fileMustExist: true });
    checkTraceShape(db);
  } catch (error) {
    if (error instanceof ForeignTraceError && error.kind === "foreign_tables") throw error;
  } finally {
    db?.close();
  }
}

/** Moves the database (and any -wal/-shm beside it) out of the way; returns the backup path, or null. */
function backUp(dbPath: string): string | null {
  const companions = ["", "-wal", "-shm"].filter((suffix) => existsSync(`${dbPath}${suffix}`));
  if (companions.length === 0) return null;
  if (existsSync(dbPath)) {
    try {
      // Fold the WAL into the main file so the backup is one self-contained file.
      const db = openSqlite(dbPath, { fileMustExist: true });
      try {
        db.pragma("wal_checkpoint(TRUNCATE)");
      } finally {
        db.close();
      }
    } catch {
      // A damaged file cannot be checkpointed; it is still moved aside, WAL and all, below.
    }
  }
  let backupPath = `${dbPath}.bak-${timestamp()}`;
  for (let attempt = 2; existsSync(backupPath); attempt += 1)
    backupPath = `${dbPath}.bak-${timestamp()}-${attempt}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(`${dbPath}${suffix}`)) renameSync(`${dbPath}${suffix}`, `${backupPath}${suffix}`);
  }
  return backupPath;
}

/**
 * Recreates the trace database from the session files: the existing database is first moved to
 * `<dbPath>.bak-<timestamp>` (never deleted), then every line of every `<sessionsDir>/<adw_id>/events.jsonl`
 * (sessions by directory name, lines in order) is upserted into a fresh database, in transactions, each
 * record redacted first as the tracer redacts it (`redactRecord`), so a secret an older sssf left in a file
 * does not come back into the database.
 * Contract: a line that is not a storable record is skipped and counted, never fatal. Throws
 * SssfError("usage") when `sessionsDir` does not exist (before touching the database), and file system or
 * SQLite errors otherwise. Run it while no sssf process writes to `dbPath`.
 * @example
 * rebuildDatabase({ sessionsDir: "adws/adw_data/sessions", dbPath: "adws/adw_data/sssf.db" });
 */
export function rebuildDatabase(options: RebuildOptions): RebuildResult {
  const { sessionsDir, dbPath } = options;
  // A shared PostgreSQL trace holds every worker's sessions: add this host's files, never replace it.
  if (isPostgresUrl(dbPath)) return loadSessions(options);
  const sessionFiles = sessionFilesIn(sessionsDir, dbPath);
  refuseForeign(dbPath);
  const backupPath = backUp(dbPath);
  return { ...storeSessionFiles(dbPath, sessionFiles), backupPath };
}

/**
 * Adds the session files of `sessionsDir` (another machine's: a cluster worker's, docs/cluster.md) to
 * the trace at `dbPath` as it is, creating it when missing: every line is upserted as `rebuildDatabase`
 * stores it, so loading the same files twice changes nothing, and sessions already there from other
 * folders stay. Same contract as `rebuildDatabase`, with no backup (nothing is replaced).
 */
export function loadSessions(options: RebuildOptions): RebuildResult {
  const sessionFiles = sessionFilesIn(options.sessionsDir, options.dbPath);
  return { ...storeSessionFiles(options.dbPath, sessionFiles), backupPath: null };
}

/** Every `<sessionsDir>/<adw_id>/events.jsonl`, by session name; a usage error when the folder is missing. */
function sessionFilesIn(sessionsDir: string, dbPath: string): string[] {
  if (!existsSync(sessionsDir)) {
    throw new SssfError(
      "usage",
      `Sessions directory not found: ${sessionsDir}; nothing to rebuild ${dbPath} from.`,
    );
  }
  return readdirSync(sessionsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => path.join(sessionsDir, name, "events.jsonl"))
    .filter((file) => existsSync(file));
}

/** Upserts every line of `sessionFiles` into the trace at `dbPath`, in transactions, redacted. */
function storeSessionFiles(dbPath: string, sessionFiles: string[]): Omit<RebuildResult, "backupPath"> {
  const result = { sessions: sessionFiles.length, records: 0, skippedLines: 0 };
  const db = openTraceDb(dbPath);
  try {
    const upsertRow = createUpserter(db);
    // On PostgreSQL a failed statement aborts its transaction: each row gets a savepoint there.
    const upsert = db.dialect === "postgres" ? db.transaction(upsertRow) : upsertRow;
    const storeLines = db.transaction((lines: string[]) => {
      for (const line of lines) {
        const record = parseRecord(line);
        if (record === undefined) {
          result.skippedLines += 1;
          continue;
        }
        try {
          // Lines written before every column was redacted may hold a raw secret: never bring it back.
          upsert(redactRecord(record));
          result.records += 1;
        } catch (error) {
          if (!isBadRow(error)) throw error;
          result.skippedLines += 1;
        }
      }
    });
    for (const file of sessionFiles) {
      let lines: string[] = [];
      for (const line of readLinesSync(file)) {
        lines.push(line);
        if (lines.length === LINES_PER_TRANSACTION) {
          storeLines(lines);
          lines = [];
        }
      }
      storeLines(lines);
    }
  } finally {
    db.close();
  }
  return result;
}
