/**
 * What `sssf phases` and `sssf envelopes` show of model ladders (docs/reliability.md): each phase's
 * escalations, and the model each envelope attempt was sent to (from its send's `agent_start` event).
 */
import type { EnvelopeRow, PhaseRow } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
import { listEvents } from "../../trace/store-queries.js";

/** One climb of a phase's ladder, as `sssf phases --json` lists it. */
export interface Escalation {
  from: string;
  to: string;
  reason: string;
}

function payloadOf(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** The session's escalations by phase id, in order. */
export async function escalationsByPhase(db: TraceSql, adwId: string): Promise<Map<string, Escalation[]>> {
  const byPhase = new Map<string, Escalation[]>();
  for (const event of await listEvents(db, adwId, { type: "escalation" })) {
    if (event.phase_id === null) continue;
    const payload = payloadOf(event.payload);
    const list = byPhase.get(event.phase_id) ?? [];
    list.push({ from: text(payload.from), to: text(payload.to), reason: text(payload.reason) });
    byPhase.set(event.phase_id, list);
  }
  return byPhase;
}

/** `escalated cheap → strong: <reason>` lines of a phase, joined; "" when it never climbed. */
export function escalationText(escalations: readonly Escalation[] | undefined): string {
  return (escalations ?? []).map((e) => `escalated ${e.from || "default"} → ${e.to}: ${e.reason}`).join("; ");
}

/** The phases with their escalations (an empty list when none), for `--json`. */
export function phasesWithEscalations(
  rows: readonly PhaseRow[],
  byPhase: Map<string, Escalation[]>,
): (PhaseRow & { escalations: Escalation[] })[] {
  return rows.map((row) => ({ ...row, escalations: byPhase.get(row.id) ?? [] }));
}

/**
 * Each envelope with the model its send went to (null when the trace does not say: an older trace, or
 * a runtime default left as "").
 */
export async function envelopesWithModels(
  db: TraceSql,
  adwId: string,
  rows: readonly EnvelopeRow[],
): Promise<(EnvelopeRow & { model: string | null })[]> {
  const models = new Map<string, string>();
  for (const event of await listEvents(db, adwId, { type: "agent_start" })) {
    const payload = payloadOf(event.payload);
    const model = text(payload.model);
    if (model !== "" && typeof payload.attempt === "number")
      models.set(`${event.phase_id}\u0000${event.agent}\u0000${payload.attempt}`, model);
  }
  return rows.map((row) => ({
    ...row,
    model: models.get(`${row.phase_id}\u0000${row.agent}\u0000${row.attempt}`) ?? null,
  }));
}
