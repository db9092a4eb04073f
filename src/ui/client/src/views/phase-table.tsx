import type { PhaseRow } from "../../../../trace/events.js";
import type { AgentInfo, PhaseCounts, Versioned } from "../../../server/api-types.js";
import { laneOf } from "../colors.js";
import { elapsed, formatClock, formatCost, formatDuration, formatTokens, truncate } from "../format.js";
import { routeHref } from "../route.js";
import { StatusBadge } from "../text.js";

interface PhaseTableProps {
  adwId: string;
  phases: Versioned<PhaseRow>[];
  counts: Record<string, PhaseCounts>;
  lanes: Map<string, string>;
  agents: AgentInfo[];
  now: number;
}

/** Context occupancy as `12.3k / 200k (6%)`, or the tokens alone when the window is unknown. */
export function occupancy(tokens: number | null, window: number | null | undefined): string {
  if (tokens === null) return "–";
  if (!window) return formatTokens(tokens);
  return `${formatTokens(tokens)} / ${formatTokens(window)} (${Math.round((tokens / window) * 100)}%)`;
}

/** Every phase of the run as a table row: status, timing, spend, tool calls, errors and attempts. */
export function PhaseTable({ adwId, phases, counts, lanes, agents, now }: PhaseTableProps) {
  return (
    <table class="table phase-table">
      <thead>
        <tr>
          <th class="num">#</th>
          <th>Phase</th>
          <th>Lane</th>
          <th>Status</th>
          <th>Started</th>
          <th class="num">Duration</th>
          <th class="num">Tokens in/out</th>
          <th class="num">Cost</th>
          <th class="num">Tool calls</th>
          <th class="num">Attempts</th>
          <th class="num">Errors</th>
          <th class="num">Context</th>
        </tr>
      </thead>
      <tbody>
        {phases.map((phase) => {
          const c = counts[phase.id];
          const lane = laneOf(phase);
          const window = agents.find((a) => a.agent === phase.owner)?.context_window;
          return (
            <tr key={phase.id} data-phase-id={phase.id} class={phase.status === "fail" ? "row-fail" : ""}>
              <td class="num">{phase.number}</td>
              <td>
                <a href={routeHref({ view: "phase", adwId, phaseId: phase.id })}>{phase.name}</a>
                {phase.error ? <div class="sub error-text">{truncate(phase.error, 160)}</div> : null}
              </td>
              <td>
                <span class="swatch" style={{ background: lanes.get(lane) }} />
                {lane}
              </td>
              <td>
                <StatusBadge status={phase.status} />
                {phase.replayed_at ? (
                  <span
                    class="badge badge-replayed"
                    title="answered from the trace by sssf resume: nothing redone"
                  >
                    replayed
                  </span>
                ) : null}
              </td>
              <td class="nowrap">{formatClock(phase.started_at)}</td>
              <td class="num">{formatDuration(elapsed(phase.started_at, phase.ended_at, now))}</td>
              <td class="num">
                {formatTokens(phase.input_tokens)}/{formatTokens(phase.output_tokens)}
              </td>
              <td class="num">{formatCost(phase.cost_usd)}</td>
              <td class="num" data-count="tool_calls">
                {c?.tool_calls ?? 0}
              </td>
              <td class="num">
                {c?.attempts ?? 0}
                {c?.invalid ? <span class="error-text"> ({c.invalid} invalid)</span> : null}
              </td>
              <td class={`num ${(c?.errors ?? 0) + (c?.gate_fails ?? 0) > 0 ? "error-text" : ""}`}>
                {c?.errors ?? 0}
                {c?.gate_fails ? ` + ${c.gate_fails} gate` : ""}
              </td>
              <td class="num">{occupancy(phase.context_tokens, window)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
