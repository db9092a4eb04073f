import type { SessionRow, SessionStatus } from "../../trace/events.js";
import type { TraceDb } from "../../trace/sqlite.js";
import { cachedStatement } from "../../trace/statement-cache.js";
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
 * Contract: runs three cached statements; throws only what SQLite throws.
 */
export function querySessions(db: TraceDb, query: SessionsQuery): Omit<SessionsPage, keyof Snapshot> {
  const params = {
    archived: query.archived === true ? 1 : 0,
    status: query.status ?? null,
    workflow: query.workflow ?? null,
    like: likePattern(query.search),
  };
  const rows = cachedStatement(
    db,
    `SELECT ${selectList(db, "sessions")} FROM sessions WHERE ${FILTER}
     ORDER BY started_at DESC, adw_id DESC LIMIT @limit OFFSET @offset`,
  ).all({ ...params, limit: query.limit, offset: query.offset }) as Versioned<SessionRow>[];
  const { total } = cachedStatement(db, `SELECT count(*) AS total FROM sessions WHERE ${FILTER}`).get(
    params,
  ) as { total: number };
  const workflows = (
    cachedStatement(db, "SELECT DISTINCT workflow FROM sessions ORDER BY workflow").all() as {
      workflow: string;
    }[]
  ).map((row) => row.workflow);
  return { sessions: rows, total, offset: query.offset, limit: query.limit, workflows };
}

/** The session `adwId` as an API row, or undefined. Throws only what SQLite throws. */
export function readSession(db: TraceDb, adwId: string): Versioned<SessionRow> | undefined {
  return cachedStatement(db, `SELECT ${selectList(db, "sessions")} FROM sessions WHERE adw_id = ?`).get(
    adwId,
  ) as Versioned<SessionRow> | undefined;
}
