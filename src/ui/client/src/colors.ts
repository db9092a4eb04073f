import type { PhaseRow } from "../../../trace/events.js";
import type { ColorScheme } from "../../server/api-types.js";

/** Color of the engineer lane. */
export const ENGINEER_COLOR = "#64748b";
/** Color of the code lane. */
export const CODE_COLOR = "#334155";

/** The lane a phase is drawn in: `engineer`, `code`, or its owning agent. */
export function laneOf(phase: Pick<PhaseRow, "kind" | "owner">): string {
  return phase.kind === "agent" ? phase.owner : phase.kind;
}

/**
 * An agent's color: its configured one, else a palette color picked by its name, so an agent keeps
 * its color in every view and every run.
 */
export function agentColor(agent: string, scheme: ColorScheme): string {
  const configured = scheme.colors[agent];
  if (configured !== undefined) return configured;
  let hash = 0;
  for (const char of agent) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return scheme.palette[hash % Math.max(1, scheme.palette.length)] ?? "#4f9cf9";
}

/** The lanes of a run in display order (engineer, code, then agents by first phase) with their colors. */
export function laneColors(phases: readonly PhaseRow[], scheme: ColorScheme): Map<string, string> {
  const lanes = new Map<string, string>([
    ["engineer", ENGINEER_COLOR],
    ["code", CODE_COLOR],
  ]);
  for (const phase of phases) {
    const lane = laneOf(phase);
    if (!lanes.has(lane)) lanes.set(lane, agentColor(lane, scheme));
  }
  return lanes;
}
