import type { SessionRow } from "../../../../trace/events.js";
import type { LiveDelta, SessionsPage, Versioned } from "../../../server/api-types.js";
import type { SessionFilters } from "../api.js";
import { mergeRows } from "../rows.js";

/** Whether a session row passes the filters, mirroring the server's query. */
export function matches(row: SessionRow, filters: SessionFilters): boolean {
  if (!filters.archived && row.archived) return false;
  if (filters.status && row.status !== filters.status) return false;
  if (filters.workflow && row.workflow !== filters.workflow) return false;
  const q = filters.q.trim().toLowerCase();
  if (q === "") return true;
  return [row.request, row.workflow, row.adw_id].some((field) => field.toLowerCase().includes(q));
}

const newestFirst = (a: SessionRow, b: SessionRow) =>
  a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : a.adw_id < b.adw_id ? 1 : -1;

/**
 * The page with a delta's session rows folded in: known rows updated (and dropped when they stop
 * matching, say once archived), new matching rows added on the first page, newest first.
 */
export function applySessions(page: SessionsPage, delta: LiveDelta, filters: SessionFilters): SessionsPage {
  if (!delta.sessions) return page;
  const known = new Set(page.sessions.map((s) => s.adw_id));
  const incoming = delta.sessions.filter((s) => known.has(s.adw_id) || filters.offset === 0);
  const merged = mergeRows<Versioned<SessionRow>>(page.sessions, incoming, (s) => s.adw_id);
  const workflows = [...new Set([...page.workflows, ...delta.sessions.map((s) => s.workflow)])].sort();
  if (merged === page.sessions)
    return workflows.length === page.workflows.length ? page : { ...page, workflows };
  const sessions = merged.filter((s) => matches(s, filters)).sort(newestFirst);
  const kept = new Set(sessions.map((s) => s.adw_id));
  const added = sessions.filter((s) => !known.has(s.adw_id)).length;
  const removed = [...known].filter((id) => !kept.has(id)).length;
  return {
    ...page,
    sessions: sessions.slice(0, page.limit),
    total: Math.max(0, page.total + added - removed),
    workflows,
  };
}
