import type { PhaseRow } from "../../../../trace/events.js";
import type { PhaseCounts, Versioned } from "../../../server/api-types.js";
import { laneOf } from "../colors.js";
import { elapsed, formatDuration } from "../format.js";

const STEPS_MS = [
  100, 250, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3,
];

function axisTicks(spanMs: number): number[] {
  const step = STEPS_MS.find((s) => spanMs / s <= 8) ?? spanMs / 8;
  const ticks: number[] = [];
  for (let t = 0; t <= spanMs; t += step) ticks.push(t);
  return ticks;
}

function tickLabel(ms: number): string {
  if (ms === 0) return "0";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${ms / 1000} s`;
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${(ms / 60_000).toFixed(1)} min`;
}

const percent = (value: number) => `${Math.min(100, Math.max(0, value * 100)).toFixed(3)}%`;

interface WaterfallProps {
  phases: Versioned<PhaseRow>[];
  counts: Record<string, PhaseCounts>;
  lanes: Map<string, string>;
  startedAt: string;
  endedAt: string | null;
  now: number;
  onOpen: (phase: PhaseRow) => void;
}

/**
 * The run on a time axis: one lane each for the engineer, code and every agent (in its color),
 * phases as bars from start to end; a running phase grows with the clock.
 */
export function Waterfall({ phases, counts, lanes, startedAt, endedAt, now, onOpen }: WaterfallProps) {
  const t0 = Date.parse(startedAt);
  const lastEnd = phases.reduce((max, p) => Math.max(max, t0 + elapsed(p.started_at, p.ended_at, now)), t0);
  const end = endedAt === null ? Math.max(now, lastEnd) : Math.max(Date.parse(endedAt), lastEnd);
  const span = Math.max(1, end - t0);
  const used = [...lanes.keys()].filter((lane) => phases.some((p) => laneOf(p) === lane));
  return (
    <div class="waterfall" data-ready={phases.length > 0 ? "1" : undefined}>
      <div class="wf-row wf-axis">
        <div class="wf-label" />
        <div class="wf-track">
          {axisTicks(span).map((t) => (
            <span key={t} class="wf-tick" style={{ left: percent(t / span) }}>
              {tickLabel(t)}
            </span>
          ))}
        </div>
      </div>
      {used.map((lane) => (
        <div class="wf-row" key={lane} data-lane={lane}>
          <div class="wf-label">
            <span class="swatch" style={{ background: lanes.get(lane) }} />
            {lane}
          </div>
          <div class="wf-track">
            {phases
              .filter((p) => laneOf(p) === lane)
              .map((phase) => {
                const start = Date.parse(phase.started_at) - t0;
                const duration = elapsed(phase.started_at, phase.ended_at, now);
                const c = counts[phase.id];
                const label = `#${phase.number} ${phase.name}`;
                return (
                  <button
                    type="button"
                    key={phase.id}
                    class={`wf-bar status-${phase.status}`}
                    data-phase-id={phase.id}
                    style={{
                      left: percent(start / span),
                      width: percent(duration / span),
                      background: lanes.get(lane),
                    }}
                    title={`${label} · ${phase.status} · ${formatDuration(duration)}${c ? ` · ${c.tool_calls} tool calls` : ""}`}
                    onClick={() => onOpen(phase)}
                  >
                    <span class="wf-bar-text">
                      {phase.status === "fail" ? "✕ " : phase.status === "running" ? "● " : ""}
                      {label} · {formatDuration(duration)}
                    </span>
                  </button>
                );
              })}
          </div>
        </div>
      ))}
    </div>
  );
}
