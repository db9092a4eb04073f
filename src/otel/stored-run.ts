import type { TraceRecord } from "../trace/events.js";
import type { TraceSql } from "../trace/store.js";
import { getSession, listAgentSessions, listEvents, listPhases } from "../trace/store-queries.js";

/**
 * A stored run's rows as the records a span export takes (`sssf db export --otlp`), parents before
 * their children: the session, its agents, its phases, its sends, then every other event by time.
 * Null when the trace has no session `adwId`.
 */
export async function storedRunRecords(db: TraceSql, adwId: string): Promise<TraceRecord[] | null> {
  const session = await getSession(db, adwId);
  if (session === undefined) return null;
  const records: TraceRecord[] = [{ table: "sessions", row: session }];
  for (const row of await listAgentSessions(db, adwId)) records.push({ table: "agent_sessions", row });
  for (const row of await listPhases(db, adwId)) records.push({ table: "phases", row });
  const events = await listEvents(db, adwId);
  for (const row of events) if (row.type === "agent_start") records.push({ table: "events", row });
  for (const row of events) if (row.type !== "agent_start") records.push({ table: "events", row });
  return records;
}
