import { readdirSync } from "node:fs";
import type { PhaseKind } from "../trace/events.js";
import type { TraceSql } from "../trace/store.js";
import { type RunningSession, runningSessions } from "./reaper.js";
import { liveLockHolder, runLiveness } from "./run-liveness.js";
import { sessionDirs } from "./session-dirs.js";

/** One live run as `sssf ps` shows it (wire names: this is also its `--json`). */
export interface LiveRun {
  adw_id: string;
  workflow: string;
  request: string;
  started_at: string;
  elapsed_ms: number;
  /** The sssf process running it. */
  pid: number | null;
  host: string | null;
  /** Its running phases (several under `run.parallel`), by number. */
  phases: { number: number; name: string; kind: PhaseKind; owner: string; started_at: string }[];
  /** Its agent and suite processes still running. */
  agents: { agent: string | null; pid: number; phase_id: string | null; started_at: string }[];
}

/** The `running` sessions whose sssf on this host is alive, oldest first. */
export async function liveSessions(db: TraceSql, sessionsDir: string): Promise<RunningSession[]> {
  return (await runningSessions(db)).flatMap((session) => {
    const liveness = runLiveness(session, sessionDirs(sessionsDir, session.adw_id).lockFile);
    return liveness.state === "live" ? [{ ...session, pid: liveness.pid, host: liveness.host }] : [];
  });
}

/** {@link liveSessions} with what each is doing now: its running phases and processes. */
export async function listLiveRuns(db: TraceSql, sessionsDir: string, now = new Date()): Promise<LiveRun[]> {
  const runs: LiveRun[] = [];
  for (const session of await liveSessions(db, sessionsDir)) {
    const params = [session.adw_id];
    const request = await db.get<{ request: string }>(
      "SELECT request FROM sessions WHERE adw_id = ?",
      params,
    );
    runs.push({
      adw_id: session.adw_id,
      workflow: session.workflow,
      request: request?.request ?? "",
      started_at: session.started_at,
      elapsed_ms: Math.max(0, now.getTime() - Date.parse(session.started_at)),
      pid: session.pid,
      host: session.host,
      phases: await db.all<LiveRun["phases"][number]>(
        "SELECT number, name, kind, owner, started_at FROM phases WHERE adw_id = ? AND status = 'running' ORDER BY number",
        params,
      ),
      agents: await db.all<LiveRun["agents"][number]>(
        "SELECT agent, pid, phase_id, started_at FROM processes WHERE adw_id = ? AND status = 'running' ORDER BY started_at, id",
        params,
      ),
    });
  }
  return runs;
}

/**
 * Sessions whose lock is held by a live process on this host, found from the session folders alone
 * (no database needed: `sssf db rebuild` asks while the database may be broken). Never throws.
 */
export function lockedSessions(sessionsDir: string): { adwId: string; pid: number }[] {
  let entries: string[];
  try {
    entries = readdirSync(sessionsDir);
  } catch {
    return [];
  }
  return entries.flatMap((adwId) => {
    const holder = liveLockHolder(sessionDirs(sessionsDir, adwId).lockFile);
    return holder === null ? [] : [{ adwId, pid: holder.pid }];
  });
}
