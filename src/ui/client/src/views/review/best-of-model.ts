import type { EventRow } from "../../../../../trace/events.js";
import type { Versioned } from "../../../../server/api-types.js";
import { parseJson } from "../../format.js";

/** One gate's verdict on one attempt. */
export interface AttemptGate {
  gate: string;
  ok: boolean;
  violations: string[];
}

/** One attempt of a best-of-N phase, from its `attempt` event (docs/trace.md). */
export interface BestOfAttempt {
  /** The event's id and version, so a rewritten attempt (a resumed run) renders afresh. */
  key: string;
  attempt: number;
  of: number;
  mode: string;
  status: string;
  winner: boolean;
  reason: string;
  changedLines: number | null;
  files: string[];
  costUsd: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  agent: string | null;
  agentSessionId: string | null;
  envelopeIds: string[];
  gates: AttemptGate[];
  check: { ok: boolean; summary: string } | null;
  /** The saved diff's path relative to the session folder, or null when it saved none. */
  diff: string | null;
  durationMs: number | null;
}

/** The phase's choice among its attempts, from its `best_of` event. */
export interface BestOfChoice {
  attempts: number;
  mode: string;
  winner: number | null;
  reason: string;
}

/** A climb of the agent's model ladder, from an `escalation` event (docs/reliability.md). */
export interface Escalation {
  id: string;
  from: string;
  to: string;
  /** The rung climbed to, 0-based; null when the payload lacks it. */
  rung: number | null;
  reason: string;
  at: string;
}

type Payload = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const count = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;
const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

function payloadOf(event: EventRow): Payload | null {
  const value = parseJson(event.payload);
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Payload) : null;
}

function gatesOf(value: unknown): AttemptGate[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((g): g is Payload => g !== null && typeof g === "object")
    .map((g) => ({
      gate: text(g.gate) || "gate",
      ok: g.ok === true || g.ok === 1,
      violations: texts(g.violations),
    }));
}

function checkOf(value: unknown): BestOfAttempt["check"] {
  if (value === null || typeof value !== "object") return null;
  const check = value as Payload;
  return { ok: check.ok === true || check.ok === 1, summary: text(check.summary) };
}

function attemptOf(event: Versioned<EventRow>, p: Payload): BestOfAttempt | null {
  const attempt = count(p.attempt);
  if (attempt === null) return null;
  return {
    key: `${event.id}@${event._v}`,
    attempt,
    of: count(p.of) ?? attempt,
    mode: text(p.mode) || "best",
    status: text(p.status) || (event.ok ? "passed" : "failed"),
    winner: p.winner === true,
    reason: text(p.reason),
    changedLines: count(p.changed_lines),
    files: texts(p.files),
    costUsd: count(p.cost_usd),
    inputTokens: count(p.input_tokens),
    outputTokens: count(p.output_tokens),
    agent: event.agent,
    agentSessionId: text(p.agent_session_id) || null,
    envelopeIds: texts(p.envelope_ids),
    gates: gatesOf(p.gates),
    check: checkOf(p.check),
    diff: text(p.diff) || null,
    durationMs: event.duration_ms,
  };
}

/**
 * The phase's best-of attempts by number (the latest event of each number: a resumed run re-runs the
 * unfinished ones) and its choice (the latest `best_of` event), from the phase's events. Payloads that
 * do not parse are skipped: the view shows what the trace holds, never throws on it.
 */
export function bestOfOf(events: readonly Versioned<EventRow>[]): {
  attempts: BestOfAttempt[];
  choice: BestOfChoice | null;
} {
  const attempts = new Map<number, BestOfAttempt>();
  let choice: BestOfChoice | null = null;
  for (const event of events) {
    if (event.type !== "attempt" && event.type !== "best_of") continue;
    const p = payloadOf(event);
    if (p === null) continue;
    if (event.type === "best_of") {
      choice = {
        attempts: count(p.attempts) ?? 0,
        mode: text(p.mode) || "best",
        winner: count(p.winner),
        reason: text(p.reason),
      };
      continue;
    }
    const attempt = attemptOf(event, p);
    if (attempt !== null) attempts.set(attempt.attempt, attempt);
  }
  return { attempts: [...attempts.values()].sort((a, b) => a.attempt - b.attempt), choice };
}

/** The phase's model-ladder climbs, in order. */
export function escalationsOf(events: readonly Versioned<EventRow>[]): Escalation[] {
  const climbs: Escalation[] = [];
  for (const event of events) {
    if (event.type !== "escalation") continue;
    const p = payloadOf(event) ?? {};
    climbs.push({
      id: event.id,
      from: text(p.from),
      to: text(p.to),
      rung: count(p.rung),
      reason: text(p.reason),
      at: event.started_at,
    });
  }
  return climbs;
}
