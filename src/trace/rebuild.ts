import { existsSync, readdirSync, renameSync } from "node:fs";
import path from "node:path";
import { SssfError } from "../errors/index.js";
import { TRACE_TABLES, type TraceRecord } from "./events.js";
import { readLinesSync } from "./jsonl-lines.js";
import { openTraceStore } from "./open-store.js";
import { redactRecord } from "./redact-record.js";
import { ForeignTraceError } from "./schema.js";
import { sqliteErrorCode } from "./sqlite/driver.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { TraceSql, TraceStore } from "./store.js";
import { checkStoreShape } from "./store-schema.js";
import { isPostgresUrl } from "./trace-location.js";

/**
 * What a session's other files add to its events.jsonl (src/session/recover-session.ts): told each
 * record the file holds, then asked for the rows it lacks and a line saying what no file holds.
 */
export interface SessionFilesRecovery {
  saw(record: TraceRecord): void;
  finish(events: "absent" | "cut" | "whole"): { records: TraceRecord[]; report: string | null };
}

/** Options of {@link rebuildDatabase}. */
export interface RebuildOptions {
  /** Directory holding one `<adw_id>/` folder (events.jsonl and the other record files) per session. */
  sessionsDir: string;
  /** Database to (re)create; an existing one is kept as `<dbPath>.bak-<timestamp>`. */
  dbPath: string;
  /** Reads a session's other record files; without it only events.jsonl is read. */
  recover?: (adwId: string, dir: string) => SessionFilesRecovery;
}

/** What {@link rebuildDatabase} did. */
export interface RebuildResult {
  /** Session directories that gave at least one row. */
  sessions: number;
  /** Per session whose events.jsonl was missing, cut short or lacking rows: what was rebuilt, what was not. */
  reports: string[];
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
async function refuseForeign(dbPath: string): Promise<void> {
  if (!existsSync(dbPath)) return;
  let db: TraceStore | undefined;
  try {
    db = openSqliteStore(dbPath, { readonly: true });
    await checkStoreShape(db);
  } catch (error) {
    if (error instanceof ForeignTraceError && error.kind === "foreign_tables") throw error;
  } finally {
    await db?.close();
  }
}

/** Moves the database (and any -wal/-shm beside it) out of the way; returns the backup path, or null. */
async function backUp(dbPath: string): Promise<string | null> {
  const companions = ["", "-wal", "-shm"].filter((suffix) => existsSync(`${dbPath}${suffix}`));
  if (companions.length === 0) return null;
  if (existsSync(dbPath)) {
    try {
      // Fold the WAL into the main file so the backup is one self-contained file.
      const db = openSqliteStore(dbPath, { fileMustExist: true });
      try {
        await db.pragma("wal_checkpoint(TRUNCATE)");
      } finally {
        await db.close();
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
 * await rebuildDatabase({ sessionsDir: "adws/adw_data/sessions", dbPath: "adws/adw_data/sssf.db" });
 */
export async function rebuildDatabase(options: RebuildOptions): Promise<RebuildResult> {
  const { sessionsDir, dbPath } = options;
  // A shared PostgreSQL trace holds every worker's sessions: add this host's files, never replace it.
  if (isPostgresUrl(dbPath)) return loadSessions(options);
  const sessions = sessionDirsIn(sessionsDir, dbPath, options.recover !== undefined);
  await refuseForeign(dbPath);
  const backupPath = await backUp(dbPath);
  const result = { ...(await storeSessions(dbPath, sessions, options)), backupPath };
  if (result.sessions === 0)
    throw new SssfError(
      "usage",
      `no session could be recovered from ${sessionsDir}: ${result.skippedLines} unreadable line(s), no row${backupPath === null ? "" : `; the previous database is kept at ${backupPath}`}`,
    );
  return result;
}

/**
 * Adds the session files of `sessionsDir` (another machine's: a cluster worker's, docs/cluster.md) to
 * the trace at `dbPath` as it is, creating it when missing: every line is upserted as `rebuildDatabase`
 * stores it, so loading the same files twice changes nothing, and sessions already there from other
 * folders stay. Same contract as `rebuildDatabase`, with no backup (nothing is replaced).
 */
export async function loadSessions(options: RebuildOptions): Promise<RebuildResult> {
  const sessions = sessionDirsIn(options.sessionsDir, options.dbPath, options.recover !== undefined);
  return { ...(await storeSessions(options.dbPath, sessions, options)), backupPath: null };
}

/** Record files that make a folder a session's, beside events.jsonl (docs/trace.md). */
const OTHER_RECORDS = ["agent_map.json", "code"];
const AGENT_RECORDS = ["prompts", "raw_output.jsonl", "envelope.json"];

/** Whether `dir` holds any record file other than events.jsonl. */
function hasOtherRecords(dir: string): boolean {
  if (OTHER_RECORDS.some((name) => existsSync(path.join(dir, name)))) return true;
  return readdirSync(dir, { withFileTypes: true }).some(
    (entry) =>
      entry.isDirectory() && AGENT_RECORDS.some((name) => existsSync(path.join(dir, entry.name, name))),
  );
}

/**
 * Every `<sessionsDir>/<adw_id>/` holding events.jsonl (or, with `others`, any other record file), by
 * name. A usage error when the folder is missing, or holds no session at all: never an empty success.
 */
function sessionDirsIn(sessionsDir: string, dbPath: string, others: boolean): string[] {
  if (!existsSync(sessionsDir)) {
    throw new SssfError(
      "usage",
      `Sessions directory not found: ${sessionsDir}; nothing to rebuild ${dbPath} from.`,
    );
  }
  const dirs = readdirSync(sessionsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => path.join(sessionsDir, name))
    .filter((dir) => existsSync(path.join(dir, "events.jsonl")) || (others && hasOtherRecords(dir)));
  if (dirs.length === 0)
    throw new SssfError(
      "usage",
      `no session to recover in ${sessionsDir}: none of its folders holds events.jsonl${others ? ", agent_map.json, prompts/, raw_output.jsonl or envelope.json" : ""}; ${dbPath} was left as it is`,
    );
  return dirs;
}

/** Upserts every session's records into the trace at `dbPath`, in transactions, redacted. */
async function storeSessions(
  dbPath: string,
  sessionDirs: string[],
  options: RebuildOptions,
): Promise<Omit<RebuildResult, "backupPath">> {
  const result = { sessions: 0, records: 0, skippedLines: 0, reports: [] as string[] };
  const db = await openTraceStore(dbPath);
  try {
    // On PostgreSQL a failed statement aborts its transaction: each row gets a savepoint there.
    const upsert = (tx: TraceSql, record: TraceRecord) =>
      db.dialect === "postgres" ? tx.transaction((one) => one.upsert([record])) : tx.upsert([record]);
    let stored = 0;
    let skipped = 0;
    const storeRecords = (records: TraceRecord[]) =>
      db.transaction(async (tx) => {
        for (const record of records) {
          try {
            // Lines written before every column was redacted may hold a raw secret: never bring it back.
            await upsert(tx, redactRecord(record));
            stored += 1;
          } catch (error) {
            if (!isBadRow(error)) throw error;
            skipped += 1;
          }
        }
      });
    for (const dir of sessionDirs) {
      const adwId = path.basename(dir);
      const recovery = options.recover?.(adwId, dir);
      const file = path.join(dir, "events.jsonl");
      const hadFile = existsSync(file);
      const before = { stored, skipped };
      let records: TraceRecord[] = [];
      let unreadable = 0;
      if (hadFile)
        for (const line of readLinesSync(file)) {
          const record = parseRecord(line);
          if (record === undefined) {
            unreadable += 1;
            continue;
          }
          recovery?.saw(record);
          records.push(record);
          if (records.length === LINES_PER_TRANSACTION) {
            await storeRecords(records);
            records = [];
          }
        }
      await storeRecords(records);
      skipped += unreadable;
      if (recovery !== undefined) {
        const events = !hadFile ? "absent" : unreadable > 0 || skipped > before.skipped ? "cut" : "whole";
        const recovered = recovery.finish(events);
        await storeRecords(recovered.records);
        if (recovered.report !== null) result.reports.push(recovered.report);
      }
      if (stored > before.stored) result.sessions += 1;
    }
    result.records = stored;
    result.skippedLines = skipped;
  } finally {
    await db.close();
  }
  return result;
}
