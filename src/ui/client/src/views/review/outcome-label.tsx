import { useEffect, useMemo, useState } from "preact/hooks";
import type { SessionRow } from "../../../../../trace/events.js";
import type { RunOutcome } from "../../../../server/review/review-types.js";
import { fetchOutcome } from "../../api.js";
import { routeHref } from "../../route.js";

/** Whether a session has an outcome worth a label: finished and not accepted. */
export function needsOutcome(s: Pick<SessionRow, "status" | "accepted">): boolean {
  return s.status !== "running" && !(s.status === "success" && s.accepted !== 0);
}

/** The short label of why a run failed, the whole reason in its tooltip. */
export function OutcomeBadge({ outcome }: { outcome: RunOutcome }) {
  return (
    <span class={`outcome outcome-${outcome.kind}`} data-kind={outcome.kind} title={outcome.detail}>
      {outcome.label}
    </span>
  );
}

/**
 * The outcomes of a list's finished, not accepted sessions: those the page came with, while their row
 * is the one the page loaded, and for rows that finished or changed since (a live delta), each fetched
 * once per version of the row.
 */
export function useOutcomes(
  sessions: readonly (SessionRow & { _v: number })[],
  given: Record<string, RunOutcome>,
): Record<string, RunOutcome> {
  const [fetched, setFetched] = useState<Record<string, RunOutcome & { v: number }>>({});
  // The rows' versions when the page (and `given` with it) was loaded.
  const loaded = useMemo(() => new Map(sessions.map((s) => [s.adw_id, s._v])), [given]);
  const fresh = (s: SessionRow & { _v: number }) =>
    given[s.adw_id] !== undefined && loaded.get(s.adw_id) === s._v;
  const wanted = sessions.filter((s) => needsOutcome(s) && !fresh(s) && fetched[s.adw_id]?.v !== s._v);
  const key = wanted.map((s) => `${s.adw_id}:${s._v}`).join(",");
  useEffect(() => {
    for (const s of wanted) {
      fetchOutcome(s.adw_id).then(
        (o) => setFetched((all) => ({ ...all, [s.adw_id]: { ...o, v: s._v } })),
        () => {},
      );
    }
  }, [key]);
  const outcomes: Record<string, RunOutcome> = {};
  for (const s of sessions) {
    const known = fresh(s) ? given[s.adw_id] : fetched[s.adw_id]?.v === s._v ? fetched[s.adw_id] : undefined;
    if (known !== undefined) outcomes[s.adw_id] = known;
  }
  return outcomes;
}

/** The run's reason under its title: why it failed (kind, label and the whole reason), or the workflow's reason. */
export function OutcomeLine({ session }: { session: SessionRow & { _v: number } }) {
  const [outcome, setOutcome] = useState<RunOutcome | null>(null);
  const wanted = needsOutcome(session);
  useEffect(() => {
    if (!wanted) return setOutcome(null);
    let gone = false;
    fetchOutcome(session.adw_id).then(
      (o) => !gone && setOutcome(o),
      () => {},
    );
    return () => {
      gone = true;
    };
  }, [session.adw_id, session._v, wanted]);
  if (!wanted || outcome === null) return session.reason ? <p class="reason">{session.reason}</p> : null;
  return (
    <p class="error-line run-outcome" data-kind={outcome.kind}>
      <OutcomeBadge outcome={outcome} />{" "}
      {outcome.phase_id ? (
        <a href={routeHref({ view: "phase", adwId: session.adw_id, phaseId: outcome.phase_id })}>the phase</a>
      ) : null}
      {outcome.phase_id ? ": " : ""}
      {outcome.detail}
    </p>
  );
}
