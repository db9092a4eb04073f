import type { EnvelopeRow, EventRow, GateResultRow, ProcessRow } from "../../../../trace/events.js";
import type { LiveDelta, PhaseDetail, Versioned } from "../../../server/api-types.js";
import { addCounts, byStart, mergeRows, newer } from "../rows.js";
import { applyAgents } from "./run-state.js";

/** Most tool calls kept in the page while a phase streams; older ones stay reachable by paging. */
export const MAX_KEPT_TOOL_CALLS = 2_000;

const byCreated = <T extends { created_at: string; id: string }>(a: T, b: T) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;

function mergeSorted<T extends { _v: number; id: string }>(
  rows: T[],
  incoming: T[] | undefined,
  order: (a: T, b: T) => number,
): T[] {
  const merged = mergeRows(rows, incoming, (r) => r.id);
  return merged === rows ? rows : [...merged].sort(order);
}

/** The phase detail with one delta folded in: rows by version, tool calls appended, counts by tick. */
export function applyPhase(detail: PhaseDetail, delta: LiveDelta): PhaseDetail {
  const phaseId = detail.phase.id;
  const phase = newer(
    detail.phase,
    delta.phases?.find((p) => p.id === phaseId),
  );
  const session = newer(
    detail.session,
    delta.sessions?.find((s) => s.adw_id === detail.session.adw_id),
  );
  const events = (delta.events ?? []).filter((e) => e.phase_id === phaseId);
  const tools = events.filter((e) => e.type === "tool_call");
  const others = events.filter((e) => e.type !== "tool_call");
  let toolCalls = detail.tool_calls;
  const rows = mergeSorted<Versioned<EventRow>>(toolCalls.rows, tools, byStart);
  if (rows !== toolCalls.rows) {
    const added = rows.length - toolCalls.rows.length;
    const drop = Math.max(0, rows.length - MAX_KEPT_TOOL_CALLS);
    toolCalls = { rows: rows.slice(drop), offset: toolCalls.offset + drop, total: toolCalls.total + added };
  }
  const fresh = delta.tick > detail.tick;
  const increments = delta.counts?.[phaseId];
  const counts =
    fresh && increments
      ? (addCounts({ [phaseId]: detail.counts }, { [phaseId]: increments })[phaseId] ?? detail.counts)
      : detail.counts;
  const next: PhaseDetail = {
    ...detail,
    phase,
    session,
    counts,
    events: mergeSorted<Versioned<EventRow>>(detail.events, others, byStart),
    tool_calls: toolCalls,
    envelopes: mergeSorted<Versioned<EnvelopeRow>>(
      detail.envelopes,
      delta.envelopes?.filter((e) => e.phase_id === phaseId),
      byCreated,
    ),
    gate_results: mergeSorted<Versioned<GateResultRow>>(
      detail.gate_results,
      delta.gate_results?.filter((g) => g.phase_id === phaseId),
      byCreated,
    ),
    processes: mergeSorted<Versioned<ProcessRow>>(
      detail.processes,
      delta.processes?.filter((p) => p.phase_id === phaseId),
      (a, b) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : a.id < b.id ? -1 : 1),
    ),
    agents: applyAgents(detail.agents, delta),
  };
  const same = (Object.keys(next) as (keyof PhaseDetail)[]).every((key) => next[key] === detail[key]);
  return same ? detail : next;
}
