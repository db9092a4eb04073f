import type { SessionRow, SessionStatus } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
import type { SessionsPage, Snapshot, Versioned } from "./api-types.js";
import { selectList } from "./row-sql.js";

/** Filters and page of {@link querySessions}. */
export interface SessionsQuery {
  /** Case-insensitive substring of the request, the workflow or the adw_id. */
  search?: string | undefined;
  status?: SessionStatus | undefined;
  workflow?: string | undefined;
  /** Include archived sessions (default false). */
  archived?: boolean | undefined;
  limit: number;
  offset: number;
}

const FILTER = `(@archived = 1 OR archived = 0)
  AND (@status IS NULL OR status = @status)
  AND (@workflow IS NULL OR workflow = @workflow)
  AND (@like IS NULL OR request LIKE @like ESCAPE '\\' OR workflow LIKE @like ESCAPE '\\'
       OR adw_id LIKE @like ESCAPE '\\')`;

/** `%text%` with LIKE's wildcards escaped, so a search for `50%` finds exactly that. */
function likePattern(search: string | undefined): string | null {
  const trimmed = search?.trim() ?? "";
  if (trimmed === "") return null;
  return `%${trimmed.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of sessions matching `query`, newest first, with the total and every workflow name.
 * Contract: runs three statements; rejects only with what the database throws.
 */
export async function querySessions(
  db: TraceSql,
  query: SessionsQuery,
): Promise<Omit<SessionsPage, keyof Snapshot | "outcomes">> {
  const params = {
    archived: query.archived === true ? 1 : 0,
    status: query.status ?? null,
    workflow: query.workflow ?? null,
    like: likePattern(query.search),
  };
  const rows = await db.all<Versioned<SessionRow>>(
    `SELECT ${selectList(db, "sessions")} FROM sessions WHERE ${FILTER}
     ORDER BY started_at DESC, adw_id DESC LIMIT @limit OFFSET @offset`,
    { ...params, limit: query.limit, offset: query.offset },
  );
  const counted = await db.get<{ total: number }>(
    `SELECT count(*) AS total FROM sessions WHERE ${FILTER}`,
    params,
  );
  const total = Number(counted?.total ?? 0);
  const workflows = (
    await db.all<{ workflow: string }>("SELECT DISTINCT workflow FROM sessions ORDER BY workflow")
  ).map((row) => row.workflow);
  return { sessions: rows, total, offset: query.offset, limit: query.limit, workflows };
}

/** The session `adwId` as an API row, or undefined. Throws only what SQLite throws. */
export async function readSession(db: TraceSql, adwId: string): Promise<Versioned<SessionRow> | undefined> {
  return db.get<Versioned<SessionRow>>(
    `SELECT ${selectList(db, "sessions")} FROM sessions WHERE adw_id = ?`,
    [adwId],
  );
}
