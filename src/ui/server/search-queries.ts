import type { TraceSql } from "../../trace/store.js";
import type { SearchHit, SearchResult } from "./api-types.js";

/** Most hits one search answers with (the total says how many matched). */
export const SEARCH_LIMIT = 200;
const SNIPPET_CONTEXT = 80;

/** A matching event as the query reads it: the hit's fields but its snippet, and the whole payload. */
type HitRow = Omit<SearchHit, "snippet"> & { payload: string };

/** `%text%` with LIKE's wildcards and the escape character escaped. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function snippet(row: HitRow, q: string): string {
  const needle = q.toLowerCase();
  for (const text of [row.payload, row.name]) {
    const at = text.toLowerCase().indexOf(needle);
    if (at === -1) continue;
    const start = Math.max(0, at - SNIPPET_CONTEXT);
    const end = Math.min(text.length, at + needle.length + SNIPPET_CONTEXT);
    return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
  }
  // LIKE folds ASCII case only; JavaScript may disagree on other letters: show the name.
  return row.name.slice(0, SNIPPET_CONTEXT * 2);
}

/**
 * The run's events whose name or payload (tool arguments and results included) contains `q`
 * (case-insensitive for ASCII, `%` and `_` literal), by time, at most {@link SEARCH_LIMIT}, each with
 * its phase and a snippet around the match. Throws only what SQLite throws.
 */
export async function searchRun(db: TraceSql, adwId: string, q: string): Promise<SearchResult> {
  const like = likeContains(q);
  const where = `e.adw_id = @adwId AND (e.name LIKE @like ESCAPE '\\' OR e.payload LIKE @like ESCAPE '\\')`;
  const counted = await db.get<{ total: number }>(`SELECT count(*) AS total FROM events e WHERE ${where}`, {
    adwId,
    like,
  });
  const total = Number(counted?.total ?? 0);
  const rows = await db.all<HitRow>(
    `SELECT e.id, e.phase_id, p.number AS phase_number, p.name AS phase_name, e.type, e.name,
         e.agent, e.started_at, e.payload
       FROM events e LEFT JOIN phases p ON p.id = e.phase_id
       WHERE ${where} ORDER BY e.started_at, e.id LIMIT @limit`,
    { adwId, like, limit: SEARCH_LIMIT },
  );
  const hits: SearchHit[] = rows.map((row) => ({
    id: row.id,
    phase_id: row.phase_id,
    phase_number: row.phase_number,
    phase_name: row.phase_name,
    type: row.type,
    name: row.name.slice(0, 500),
    agent: row.agent,
    started_at: row.started_at,
    snippet: snippet(row, q),
  }));
  return { q, total, hits };
}
