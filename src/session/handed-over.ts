import type { SessionRow } from "../trace/events.js";
import type { TraceSql } from "../trace/store.js";

/**
 * The payload a worker taking a run over adds to the event that closes the previous attempt: what
 * {@link handedOver} recognises.
 */
export function takeOverPayload(toWorker: string): { failover: true; to_worker: string } {
  return { failover: true, to_worker: toWorker };
}

/**
 * True when `session` ended only because a cluster worker took its run over (its row closed as
 * `interrupted` with the take-over's reason, its event carrying {@link takeOverPayload}): the run goes on in a new attempt,
 * which opens the row again within moments. A follower keeps following such a session. Never rejects.
 */
export async function handedOver(db: TraceSql, session: SessionRow): Promise<boolean> {
  if (session.status !== "interrupted" || session.reason === null) return false;
  try {
    const row = await db.get<{ payload: string }>(
      "SELECT payload FROM events WHERE adw_id = ? AND type = 'error' AND name = ? ORDER BY started_at DESC LIMIT 1",
      [session.adw_id, session.reason],
    );
    return row !== undefined && (JSON.parse(row.payload) as { failover?: unknown }).failover === true;
  } catch {
    return false;
  }
}
