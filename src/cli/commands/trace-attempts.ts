/**
 * What `sssf phases` shows of best-of phases (docs/reliability.md, "Best-of-N"): one line per attempt
 * under its phase, from the `attempt` events, and an `attempts` array per phase with `--json`.
 */
import type { PhaseRow } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
import { listEvents } from "../../trace/store-queries.js";
import { agentText, formatCost, formatDuration, formatTokens } from "../format.js";

/** One attempt of a best-of phase, as `sssf phases --json` lists it. */
export interface AttemptLine {
  attempt: number;
  of: number;
  status: string;
  winner: boolean;
  reason: string;
  changed_lines: number;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  duration_ms: number | null;
  /** True when every gate passed, false when one failed, null when no gate ran. */
  gates_ok: boolean | null;
  check: { ok: boolean; summary: string } | null;
  diff: string;
}

const num = (value: unknown): number => (typeof value === "number" ? value : 0);
const str = (value: unknown): string => (typeof value === "string" ? value : "");

function lineOf(payload: Record<string, unknown>, durationMs: number | null): AttemptLine {
  const gates = Array.isArray(payload.gates) ? (payload.gates as { ok?: unknown }[]) : [];
  const check = payload.check as AttemptLine["check"] | undefined;
  return {
    attempt: num(payload.attempt),
    of: num(payload.of),
    status: str(payload.status),
    winner: payload.winner === true,
    reason: str(payload.reason),
    changed_lines: num(payload.changed_lines),
    cost_usd: num(payload.cost_usd),
    input_tokens: num(payload.input_tokens),
    output_tokens: num(payload.output_tokens),
    duration_ms: durationMs,
    gates_ok: gates.length === 0 ? null : gates.every((gate) => gate.ok === true),
    check: check ?? null,
    diff: str(payload.diff),
  };
}

/** The session's best-of attempts by phase id, in attempt order. */
export async function attemptsByPhase(db: TraceSql, adwId: string): Promise<Map<string, AttemptLine[]>> {
  const byPhase = new Map<string, AttemptLine[]>();
  for (const event of await listEvents(db, adwId, { type: "attempt" })) {
    if (event.phase_id === null) continue;
    let payload: Record<string, unknown> = {};
    try {
      payload = JSON.parse(event.payload) as Record<string, unknown>;
    } catch {
      // A payload that is not JSON shows as zeros.
    }
    const list = byPhase.get(event.phase_id) ?? [];
    list.push(lineOf(payload, event.duration_ms));
    byPhase.set(event.phase_id, list);
  }
  for (const list of byPhase.values()) list.sort((a, b) => a.attempt - b.attempt);
  return byPhase;
}

/** The table rows of a phase's attempts, under the phase's columns. */
export function attemptRows(phase: PhaseRow, attempts: readonly AttemptLine[] | undefined): string[][] {
  return (attempts ?? []).map((a) => {
    const gates = a.gates_ok === null ? "" : a.gates_ok ? ", gates ok" : ", gates failed";
    const check = a.check === null ? "" : a.check.ok ? ", check ok" : ", check failed";
    return [
      "",
      `  attempt ${a.attempt}/${a.of}`,
      "attempt",
      phase.owner,
      a.winner ? "WINNER" : a.status,
      formatDuration(a.duration_ms),
      `${formatTokens(a.input_tokens)}/${formatTokens(a.output_tokens)}`,
      formatCost(a.cost_usd),
      agentText(`${a.changed_lines} changed line(s)${gates}${check} — ${a.reason}`, 120),
    ];
  });
}
