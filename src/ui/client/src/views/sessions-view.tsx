import { useEffect, useRef, useState } from "preact/hooks";
import type { SessionRow } from "../../../../trace/events.js";
import type { SessionsPage, Versioned } from "../../../server/api-types.js";
import type { RunOutcome } from "../../../server/review/review-types.js";
import { fetchSessions, postArchive, type SessionFilters } from "../api.js";
import { elapsed, formatCost, formatDuration, formatTime, formatTokens, truncate } from "../format.js";
import { useLive, useNow } from "../live.js";
import { navigate, routeHref } from "../route.js";
import { StatusBadge } from "../text.js";
import { needsOutcome, OutcomeBadge, useOutcomes } from "./review/outcome-label.js";
import { SessionsFilters } from "./sessions-filters.js";
import { applySessions } from "./sessions-state.js";

const EMPTY: SessionFilters = { q: "", status: "", workflow: "", archived: false, offset: 0 };

function SessionLine({
  session,
  now,
  onArchive,
  picked,
  onPick,
  outcome,
}: {
  session: Versioned<SessionRow>;
  outcome: RunOutcome | undefined;
  now: number;
  onArchive: (s: SessionRow) => void;
  picked: boolean;
  onPick: (adwId: string, on: boolean) => void;
}) {
  const href = routeHref({ view: "run", adwId: session.adw_id });
  const running = session.status === "running";
  return (
    <tr class={session.archived ? "archived" : ""} data-adw-id={session.adw_id}>
      <td>
        <input
          type="checkbox"
          class="pick"
          title="Pick to compare"
          checked={picked}
          onChange={(e) => onPick(session.adw_id, (e.currentTarget as HTMLInputElement).checked)}
        />
      </td>
      <td>
        <StatusBadge status={session.status} />
        {outcome ? (
          <div class="sub">
            <OutcomeBadge outcome={outcome} />
          </div>
        ) : null}
      </td>
      <td class="request">
        <a href={href} title={session.request}>
          {truncate(session.request.replace(/\s+/g, " "), 140) || "(empty request)"}
        </a>
        <div class="sub mono">{session.adw_id}</div>
      </td>
      <td>{session.workflow}</td>
      <td class="nowrap">{formatTime(session.started_at)}</td>
      <td class="num">
        {formatDuration(running ? elapsed(session.started_at, null, now) : session.duration_ms)}
      </td>
      <td class="num">{formatTokens(session.input_tokens + session.output_tokens)}</td>
      <td class="num">{formatCost(session.cost_usd)}</td>
      <td>
        <button type="button" class="link-button" onClick={() => onArchive(session)}>
          {session.archived ? "Unarchive" : "Archive"}
        </button>
      </td>
    </tr>
  );
}

/** The sessions list: status, request, workflow, start, duration, tokens and cost, live. */
export function SessionsView() {
  const [filters, setFilters] = useState<SessionFilters>(EMPTY);
  const [problem, setProblem] = useState<string | null>(null);
  // Sessions picked to compare, in the order they were ticked (the latest two count).
  const [picked, setPicked] = useState<string[]>([]);
  const pick = (adwId: string, on: boolean) =>
    setPicked((list) =>
      on ? [...list.filter((id) => id !== adwId), adwId].slice(-2) : list.filter((id) => id !== adwId),
    );
  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  const live = useLive<SessionsPage>({
    adwId: null,
    phaseId: null,
    load: () => fetchSessions(filtersRef.current),
    apply: (page, delta) => applySessions(page, delta, filtersRef.current),
  });
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    live.reload();
  }, [filters]);
  const page = live.data;
  const outcomes = useOutcomes(page?.sessions ?? [], page?.outcomes ?? {});
  const now = useNow(page?.sessions.some((s) => s.status === "running") ?? false, 1000);

  const archive = (session: SessionRow) => {
    setProblem(null);
    postArchive(session.adw_id, !session.archived).catch((error: Error) => setProblem(error.message));
  };

  return (
    <section class="view sessions-view">
      <h1>Sessions</h1>
      <SessionsFilters
        filters={filters}
        workflows={page?.workflows ?? []}
        onChange={(f) => setFilters({ ...f })}
      />
      <div class="compare-bar">
        <button
          type="button"
          class="compare-button"
          disabled={picked.length !== 2}
          onClick={() => {
            const [a, b] = picked;
            if (a && b) navigate({ view: "compare", a, b });
          }}
        >
          Compare {picked.length === 2 ? "the two picked runs" : `(pick two runs: ${picked.length}/2)`}
        </button>
      </div>
      {problem ? <p class="error-line">Archive failed: {problem}</p> : null}
      {live.error ? <p class="error-line">{live.error}</p> : null}
      {page === null ? (
        <p class="muted">Loading…</p>
      ) : page.sessions.length === 0 ? (
        <p class="muted">
          No sessions{filters.q || filters.status || filters.workflow ? " match these filters" : " yet"}.
        </p>
      ) : (
        <table class="table sessions-table">
          <thead>
            <tr>
              <th />
              <th>Status</th>
              <th>Request</th>
              <th>Workflow</th>
              <th>Started</th>
              <th class="num">Duration</th>
              <th class="num">Tokens</th>
              <th class="num">Cost</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {page.sessions.map((s) => (
              <SessionLine
                key={s.adw_id}
                session={s}
                now={now}
                onArchive={archive}
                picked={picked.includes(s.adw_id)}
                onPick={pick}
                outcome={needsOutcome(s) ? outcomes[s.adw_id] : undefined}
              />
            ))}
          </tbody>
        </table>
      )}
      {page && page.total > page.limit ? (
        <div class="pager">
          <button
            type="button"
            disabled={filters.offset === 0}
            onClick={() => setFilters({ ...filters, offset: Math.max(0, filters.offset - page.limit) })}
          >
            Newer
          </button>
          <span>
            {filters.offset + 1}–{Math.min(page.total, filters.offset + page.limit)} of {page.total}
          </span>
          <button
            type="button"
            disabled={filters.offset + page.limit >= page.total}
            onClick={() => setFilters({ ...filters, offset: filters.offset + page.limit })}
          >
            Older
          </button>
        </div>
      ) : null}
    </section>
  );
}
