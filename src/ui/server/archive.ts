import { openTraceConnection } from "../../trace/database.js";

/**
 * Sets `sessions.archived` of one session: the UI's only write, through its own short-lived writable
 * connection (the UI reads through a read-only one). No migration, no journal-mode change: the
 * connection only updates that one column and closes.
 * Contract: returns false when there is no such session; throws what SQLite throws (busy after 5 s,
 * read-only file).
 */
export function setArchived(dbPath: string, adwId: string, archived: boolean): boolean {
  const db = openTraceConnection(dbPath);
  try {
    db.pragma("busy_timeout = 5000");
    const result = db
      .prepare("UPDATE sessions SET archived = ? WHERE adw_id = ?")
      .run(archived ? 1 : 0, adwId);
    return result.changes > 0;
  } finally {
    db.close();
  }
}
