/**
 * The reaper: a session left `running` by an sssf that died (kill -9, a crash, a closed machine) is
 * closed as `interrupted` — its running phases and processes too, its open spans ended — and the
 * agent processes it left are ended. Every record goes through the session's `events.jsonl` as well,
 * so `sssf db rebuild` reproduces it. See docs/lifecycle.md.
 */

import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { SessionLockedError } from "../errors/session-locked-error.js";
import type { EventRow, PhaseRow, ProcessRow, SessionRow, TraceRecord } from "../trace/events.js";
import { EventsFile } from "../trace/events-file.js";
import { openTraceStore } from "../trace/open-store.js";
import { redactRecord } from "../trace/redact-record.js";
import { endEventRow, endPhaseRow, eventRow } from "../trace/rows.js";
import type { TraceSql } from "../trace/store.js";
import { getSession } from "../trace/store-queries.js";
import { processAlive, RUN_ID_ENV, runMarkerValue, terminateRunProcesses } from "../util/process-group.js";
import { runLiveness } from "./run-liveness.js";
import { sessionDirs } from "./session-dirs.js";
import { acquireSessionLock } from "./session-lock.js";

/** A `running` row of the sessions table: who runs it. */
export interface RunningSession {
  adw_id: string;
  workflow: string;
  started_at: string;
  pid: number | null;
  host: string | null;
}

/**
 * Every session whose row says `running`, oldest first: one query over the sessions table. Works on
 * databases from before `pid`/`host` existed (their values read as null).
 */
export async function runningSessions(db: TraceSql): Promise<RunningSession[]> {
  const where = "FROM sessions WHERE status = 'running' ORDER BY started_at, adw_id";
  try {
    return await db.all<RunningSession>(`SELECT adw_id, workflow, started_at, pid, host ${where}`);
  } catch (error) {
    if (!/no such column|does not exist/.test((error as Error).message)) throw error;
    return db.all<RunningSession>(`SELECT adw_id, workflow, started_at, NULL AS pid, NULL AS host ${where}`);
  }
}

/** Where the sessions live and who is closing them (named in the reason: `sssf sessions`, `sssf kill`…). */
export interface ReapOptions {
  dbPath: string;
  sessionsDir: string;
  by: string;
}

/** One session the reaper closed. */
export interface ReapedSession {
  adwId: string;
  /** The sssf that had run it. */
  pid: number | null;
  /** Processes and process groups that were still alive and were ended. */
  processesEnded: number;
  reason: string;
}

/** What {@link reapDeadRuns} did. */
export interface ReapResult {
  reaped: ReapedSession[];
  /** Sessions that could not be closed (a read-only database…), with why. */
  failed: { adwId: string; error: string }[];
}

/**
 * Closes every `running` session whose sssf on this host is gone (see `runLiveness`). `readDb` may be
 * read-only: it answers the one query, and a writable connection is opened only when a session is
 * found dead. Sessions of other hosts are never touched, nor sessions whose folder is not in
 * `sessionsDir`: their sssf did not run here (a cluster worker's run on a shared trace, whose engine
 * places it on another worker when its worker dies; the new worker closes the attempt it takes over),
 * and `sssf kill <adw_id>` closes one explicitly. Never throws for one session: its error is in `failed`.
 */
export async function reapDeadRuns(readDb: TraceSql, options: ReapOptions): Promise<ReapResult> {
  const result: ReapResult = { reaped: [], failed: [] };
  const dead = (await runningSessions(readDb)).filter((session) => {
    const dirs = sessionDirs(options.sessionsDir, session.adw_id);
    return existsSync(dirs.root) && runLiveness(session, dirs.lockFile).state === "dead";
  });
  if (dead.length === 0) return result;
  let db: TraceSql & { close(): Promise<void> };
  try {
    db = await openTraceStore(options.dbPath);
  } catch (error) {
    for (const session of dead)
      result.failed.push({ adwId: session.adw_id, error: (error as Error).message });
    return result;
  }
  try {
    for (const session of dead) {
      try {
        const reaped = await reapRun(db, options, session.adw_id);
        if (reaped !== null) result.reaped.push(reaped);
      } catch (error) {
        result.failed.push({ adwId: session.adw_id, error: (error as Error).message });
      }
    }
  } finally {
    await db.close();
  }
  return result;
}

/**
 * Closes the session `adwId` when its row is `running` and its sssf is gone: under the session's lock
 * (a stale lock is taken over; a live holder means it is not dead, and null is returned), so two
 * reapers, or a reaper and a rejoining run, never close it twice. Null when there was nothing to close.
 */
export async function reapRun(
  db: TraceSql,
  options: ReapOptions,
  adwId: string,
): Promise<ReapedSession | null> {
  const dirs = sessionDirs(options.sessionsDir, adwId);
  // No folder (a database read away from its sessions, a deleted folder): no run can hold it, and there
  // is no events.jsonl to append to; the rows are closed in the database alone.
  if (!existsSync(dirs.root)) return reapWithoutFiles(db, options, adwId);
  let release: () => void;
  try {
    release = acquireSessionLock(dirs.lockFile, adwId);
  } catch (error) {
    if (error instanceof SessionLockedError) return null;
    throw error;
  }
  try {
    const session = await getSession(db, adwId);
    if (session === undefined || session.status !== "running") return null;
    if (session.host !== null && session.host !== hostname()) return null;
    if (session.pid !== null && processAlive(session.pid)) return null;
    return await closeDeadRun(db, dirs.eventsFile, session, options.by);
  } finally {
    release();
  }
}

const describeOwner = (session: SessionRow) =>
  session.pid === null ? "the sssf process that ran it" : `the sssf process that ran it (pid ${session.pid})`;

/** {@link reapRun} for a session without a folder: the same records, upserted into the database only. */
async function reapWithoutFiles(
  db: TraceSql,
  options: ReapOptions,
  adwId: string,
): Promise<ReapedSession | null> {
  const session = await getSession(db, adwId);
  if (session === undefined || session.status !== "running") return null;
  if (session.host !== null && session.host !== hostname()) return null;
  if (session.pid !== null && processAlive(session.pid)) return null;
  const processesEnded = await endLeftoverProcesses(db, session);
  const reason = `interrupted: ${describeOwner(session)} is gone; closed by ${options.by}`;
  const records: TraceRecord[] = [];
  await closeSessionAsInterrupted(db, (record) => records.push(record), session, {
    reason,
    payload: { pid: session.pid, host: session.host, closed_by: options.by, processes_ended: processesEnded },
  });
  await storeRecords(db, records.map(redactRecord));
  return { adwId, pid: session.pid, processesEnded, reason };
}

/**
 * Ends what the dead sssf of `session` left running: the processes carrying its run's marker (Linux)
 * and the groups of its processes still `running` on record (only on the host that ran it). Resolves with how many processes and
 * groups were still alive. Never throws.
 */
export async function endLeftoverProcesses(db: TraceSql, session: SessionRow): Promise<number> {
  // Another host's pids mean nothing here.
  if (session.host !== null && session.host !== hostname()) return 0;
  const running = await db.all<Pick<ProcessRow, "pid">>(
    "SELECT pid FROM processes WHERE adw_id = ? AND status = 'running'",
    [session.adw_id],
  );
  const marker =
    session.pid !== null && session.host !== null
      ? { name: RUN_ID_ENV, value: runMarkerValue(session.adw_id, session.pid, session.host) }
      : undefined;
  return terminateRunProcesses({ ...(marker ? { marker } : {}), groups: running.map((row) => row.pid) });
}

/**
 * Writes `records` (redacted) as a tracer does: to the session's `events.jsonl` first, the raw record,
 * then to the database in one transaction.
 */
async function writeRecords(db: TraceSql, eventsFile: string, records: TraceRecord[]): Promise<void> {
  const redacted = records.map(redactRecord);
  const file = new EventsFile(eventsFile);
  try {
    file.append(redacted);
  } finally {
    file.close();
  }
  await storeRecords(db, redacted);
}

/** Upserts `records` in one transaction. */
async function storeRecords(db: TraceSql, records: readonly TraceRecord[]): Promise<void> {
  await db.transaction((tx) => tx.upsert(records));
}

/** Ends the dead run's processes, then closes its rows. */
async function closeDeadRun(
  db: TraceSql,
  eventsFile: string,
  session: SessionRow,
  by: string,
): Promise<ReapedSession> {
  const processesEnded = await endLeftoverProcesses(db, session);
  const reason = `interrupted: ${describeOwner(session)} is gone; closed by ${by}`;
  const records: TraceRecord[] = [];
  await closeSessionAsInterrupted(db, (record) => records.push(record), session, {
    reason,
    payload: { pid: session.pid, host: session.host, closed_by: by, processes_ended: processesEnded },
  });
  await writeRecords(db, eventsFile, records);
  return { adwId: session.adw_id, pid: session.pid, processesEnded, reason };
}

/**
 * Writes, through `write`, the records that close `session` as `interrupted`: every running process
 * and phase (with `reason` as the phase's error), every open span (ok 0), an `error` event saying why,
 * and the session row (not accepted, ended now), once every read is done; processes are not
 * signalled here. Resolves with the session row as written.
 */
export async function closeSessionAsInterrupted(
  db: TraceSql,
  write: (record: TraceRecord) => void,
  session: SessionRow,
  detail: { reason: string; payload?: Record<string, unknown> },
): Promise<SessionRow> {
  const rows = <T>(sql: string) => db.all<T>(sql, [session.adw_id]);
  const processes = await rows<ProcessRow>("SELECT * FROM processes WHERE adw_id = ? AND status = 'running'");
  const phases = await rows<PhaseRow>("SELECT * FROM phases WHERE adw_id = ? AND status = 'running'");
  const events = await rows<EventRow>("SELECT * FROM events WHERE adw_id = ? AND ended_at IS NULL");
  const now = new Date();
  const endedAt = now.toISOString();
  for (const row of processes)
    write({ table: "processes", row: { ...row, status: "interrupted", ended_at: endedAt } });
  for (const row of phases)
    write({
      table: "phases",
      row: endPhaseRow({ ...row, status: "interrupted", error: row.error ?? detail.reason }, now),
    });
  for (const row of events) write({ table: "events", row: endEventRow({ ...row }, now, false) });
  write({
    table: "events",
    row: eventRow(session.adw_id, {
      type: "error",
      name: detail.reason,
      phaseId: null,
      ok: false,
      startedAt: now,
      payload: { error: detail.reason, code: "interrupted", ...detail.payload },
    }),
  });
  const closed: SessionRow = {
    ...session,
    status: "interrupted",
    accepted: 0,
    reason: detail.reason,
    ended_at: endedAt,
    duration_ms: now.getTime() - Date.parse(session.started_at),
  };
  write({ table: "sessions", row: closed });
  return closed;
}

/**
 * Closes this process's own session at once, as `interrupted` (the last resort of a run that did not
 * finalize in time after a second signal): its own connection, the records appended to its
 * `events.jsonl` first. Resolves false when there was nothing to close or it failed; never rejects.
 */
export async function closeOwnRunNow(
  paths: { dbPath: string; sessionsDir: string },
  adwId: string,
  reason: string,
): Promise<boolean> {
  try {
    const db = await openTraceStore(paths.dbPath);
    try {
      const session = await getSession(db, adwId);
      if (session === undefined || session.status !== "running") return false;
      const records: TraceRecord[] = [];
      await closeSessionAsInterrupted(db, (record) => records.push(record), session, {
        reason,
        payload: { pid: process.pid, host: hostname(), closed_by: "its own sssf" },
      });
      await writeRecords(db, sessionDirs(paths.sessionsDir, adwId).eventsFile, records);
      return true;
    } finally {
      await db.close();
    }
  } catch {
    return false;
  }
}
