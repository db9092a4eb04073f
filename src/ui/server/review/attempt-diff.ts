import { lstatSync } from "node:fs";
import path from "node:path";
import type { TraceSql } from "../../../trace/store.js";
import type { FileText } from "../api-types.js";
import { fileInside, readSessionFile, sessionRoot } from "../session-files.js";

/** One best-of attempt's saved diff, or why it is not served (403: outside the session folder; 404: absent). */
export type AttemptDiff = { diff: FileText } | { status: 403 | 404; error: string };

/** The `diff` of the latest `attempt` event numbered `attempt` in the phase; undefined when there is none. */
async function attemptDiffPath(
  db: TraceSql,
  adwId: string,
  phaseId: string,
  attempt: number,
): Promise<{ diff: unknown } | undefined> {
  // A resumed best-of re-runs unfinished attempts: the newest event of a number is the one that counts.
  const rows = await db.all<{ payload: string | null }>(
    `SELECT payload FROM events WHERE adw_id = ? AND phase_id = ? AND type = 'attempt'
     ORDER BY started_at DESC, id DESC`,
    [adwId, phaseId],
  );
  for (const row of rows) {
    let payload: { attempt?: unknown; diff?: unknown };
    try {
      payload = JSON.parse(row.payload ?? "{}") as typeof payload;
    } catch {
      continue;
    }
    if (payload !== null && typeof payload === "object" && payload.attempt === attempt) {
      return { diff: payload.diff };
    }
  }
  return undefined;
}

/**
 * The diff a best-of attempt saved (its `attempt` event's `diff`, a path relative to the session
 * folder), read as the other session files are: only a regular file inside the session folder after
 * symlinks are followed, secrets redacted, cut to the text limit. An absolute path, a `..` escape or a
 * link leading out is refused (403); a missing attempt, session folder or file says which (404).
 * Never throws for what the trace or the file system holds; rejects only with database errors.
 */
export async function readAttemptDiff(
  db: TraceSql,
  adwId: string,
  phaseId: string,
  attempt: number,
  sessionsDir: string,
): Promise<AttemptDiff> {
  const found = await attemptDiffPath(db, adwId, phaseId, attempt);
  if (found === undefined) return { status: 404, error: `no attempt ${attempt} in this phase` };
  const file = found.diff;
  if (typeof file !== "string" || file === "") {
    return { status: 404, error: `attempt ${attempt} saved no diff` };
  }
  const shown = JSON.stringify(file.slice(0, 200));
  if (path.isAbsolute(file) || path.win32.isAbsolute(file)) {
    return {
      status: 403,
      error: `attempt ${attempt}'s diff ${shown} is an absolute path; only files inside the session folder are served`,
    };
  }
  if (path.normalize(file).split(/[\\/]/)[0] === "..") {
    return { status: 403, error: `attempt ${attempt}'s diff ${shown} leads out of the session folder` };
  }
  const root = sessionRoot(sessionsDir, adwId);
  if (root === null) return { status: 404, error: `the session folder of ${adwId} is missing` };
  try {
    lstatSync(path.join(root, file));
  } catch {
    return { status: 404, error: `attempt ${attempt}'s diff ${shown} is missing from the session folder` };
  }
  const real = fileInside(root, file);
  if (real === null) {
    return {
      status: 403,
      error: `attempt ${attempt}'s diff ${shown} is not a file inside the session folder (a link out of it, or a folder)`,
    };
  }
  return { diff: readSessionFile(root, real) };
}
