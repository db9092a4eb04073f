import { openTraceConnection } from "../../trace/open-store.js";

/**
 * Sets `sessions.archived` of one session: the UI's only write, through its own short-lived writable
 * connection (the UI reads through a read-only one). No migration, no journal-mode change: the
 * connection only updates that one column and closes.
 * Contract: resolves false when there is no such session; rejects with what the database throws
 * (busy after 5 s, read-only file).
 */
export async function setArchived(dbPath: string, adwId: string, archived: boolean): Promise<boolean> {
  const store = openTraceConnection(dbPath);
  try {
    await store.pragma("busy_timeout = 5000");
    const result = await store.run("UPDATE sessions SET archived = ? WHERE adw_id = ?", [
      archived ? 1 : 0,
      adwId,
    ]);
    return result.changes > 0;
  } finally {
    await store.close();
  }
}
