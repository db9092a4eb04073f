import type { PhaseRow } from "../../../../trace/events.js";
import type { AgentInfo, LiveDelta, RunView, Versioned } from "../../../server/api-types.js";
import { addCounts, mergeRows, newer } from "../rows.js";

/** Agents with the delta's agent-session rows (model, sends) folded in. */
export function applyAgents(agents: AgentInfo[], delta: LiveDelta): AgentInfo[] {
  if (!delta.agent_sessions?.length) return agents;
  const next = [...agents];
  for (const row of delta.agent_sessions) {
    const at = next.findIndex((a) => a.agent === row.agent);
    const info: AgentInfo = {
      agent: row.agent,
      model: row.model || null,
      coding_agent: row.coding_agent || null,
      sends: row.sends,
      context_window: at === -1 ? null : (next[at]?.context_window ?? null),
    };
    if (at === -1) next.push(info);
    else next[at] = info;
  }
  return next;
}

const byNumber = (a: PhaseRow, b: PhaseRow) => a.number - b.number || (a.started_at < b.started_at ? -1 : 1);

/** The run with one delta folded in; count increments only from ticks after the snapshot's. */
export function applyRun(run: RunView, delta: LiveDelta, adwId: string): RunView {
  const session = newer(
    run.session,
    delta.sessions?.find((s) => s.adw_id === adwId),
  );
  const incoming = delta.phases?.filter((p) => p.adw_id === adwId);
  let phases = mergeRows<Versioned<PhaseRow>>(run.phases, incoming, (p) => p.id);
  if (phases !== run.phases) phases = [...phases].sort(byNumber);
  const fresh = delta.tick > run.tick;
  const counts = fresh ? addCounts(run.counts, delta.counts) : run.counts;
  const agents = applyAgents(run.agents, delta);
  if (session === run.session && phases === run.phases && counts === run.counts && agents === run.agents) {
    return run;
  }
  return { ...run, session, phases, counts, agents, tick: Math.max(run.tick, delta.tick) };
}
