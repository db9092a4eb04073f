/**
 * Why a run ended as it did, classified from the trace's structured fields: the session's status, the
 * `code` (and budget figures) of its `error` events, the failing phase's agent sends (`error_kind`),
 * envelopes (valid, status) and gate results, and for a run the workflow refused itself, its suites'
 * VerifyOutput envelopes, the baseline events and the fix phases. Prose is read only for the signal's
 * name, which the trace keeps nowhere else.
 */
import type { PhaseRow, SessionRow } from "../../../trace/events.js";
import type { TraceSql } from "../../../trace/store.js";
import type { OutcomeKind, RunOutcome } from "./review-types.js";

interface EventLite {
  phase_id: string | null;
  type: string;
  ok: number | null;
  payload: string;
}

type PhaseLite = Pick<PhaseRow, "id" | "number" | "name" | "kind" | "owner" | "status" | "error">;

interface EnvelopeLite {
  phase_id: string;
  id: string;
  output_type: string;
  valid: number;
  status: string | null;
  envelope_json: string | null;
}

function parse(text: string | null): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text ?? "");
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The signal an interrupted run names in its reason (`interrupted by SIGINT`), if any. */
function signalOf(reason: string | null): string | null {
  return /\binterrupted by (SIG[A-Z]+)\b/.exec(reason ?? "")?.[1] ?? null;
}

/** What the classification reads of one session, in five statements. */
async function readFacts(db: TraceSql, adwId: string) {
  const phases = await db.all<PhaseLite>(
    "SELECT id, number, name, kind, owner, status, error FROM phases WHERE adw_id = ? ORDER BY number, started_at",
    [adwId],
  );
  const events = await db.all<EventLite>(
    `SELECT phase_id, type, ok, payload FROM events WHERE adw_id = ?
     AND (type = 'error' OR (type = 'agent_end' AND ok = 0) OR (type = 'log' AND payload LIKE '%"baseline"%'))
     ORDER BY started_at, id`,
    [adwId],
  );
  const envelopes = await db.all<EnvelopeLite>(
    `SELECT phase_id, id, output_type, valid, status, envelope_json FROM envelopes WHERE adw_id = ?
     ORDER BY created_at, id`,
    [adwId],
  );
  const failedGates = await db.all<{ envelope_id: string; gate: string }>(
    "SELECT envelope_id, gate FROM gate_results WHERE adw_id = ? AND ok = 0",
    [adwId],
  );
  return { phases, events, envelopes, failedGates };
}

type Facts = Awaited<ReturnType<typeof readFacts>>;
type Verdict = { kind: OutcomeKind; label: string; phase: string | null };

/** A phase that threw: why, from its error event, its sends, its last envelope and gates. */
function phaseVerdict(facts: Facts, phaseId: string, payload: Record<string, unknown>): Verdict {
  if (typeof payload.budget === "string") {
    const measure = typeof payload.measure === "string" ? ` ${payload.measure}` : "";
    return { kind: "budget", label: `budget exceeded (${payload.budget}${measure})`, phase: phaseId };
  }
  if (payload.code !== "phase_failed") return { kind: "crashed", label: "crashed", phase: phaseId };
  const sends = facts.events.filter((e) => e.type === "agent_end" && e.phase_id === phaseId);
  const lastSend = sends.at(-1);
  if (lastSend !== undefined) {
    const kind = String(parse(lastSend.payload).error_kind ?? "agent_error");
    if (kind === "aborted") return { kind: "interrupted", label: "interrupted", phase: phaseId };
    return { kind: "agent_failed", label: `agent failed (${kind})`, phase: phaseId };
  }
  const last = facts.envelopes.filter((e) => e.phase_id === phaseId).at(-1);
  if (last === undefined) return { kind: "crashed", label: "phase failed", phase: phaseId };
  if (last.valid !== 1) return { kind: "invalid_envelope", label: "invalid envelope", phase: phaseId };
  const gates = facts.failedGates.filter((g) => g.envelope_id === last.id).map((g) => g.gate);
  if (gates.length > 0)
    return {
      kind: "gate_violation",
      label: `gate violation (${[...new Set(gates)].join(", ")})`,
      phase: phaseId,
    };
  if (last.status === "fail")
    return { kind: "agent_declared_fail", label: "agent reported failure", phase: phaseId };
  return { kind: "crashed", label: "phase failed", phase: phaseId };
}

/** A run the workflow itself refused (no error): its last failing suite, else its last review. */
function workflowVerdict(facts: Facts): Verdict {
  const verifies = facts.envelopes.filter((e) => e.output_type === "VerifyOutput" && e.valid === 1);
  const lastVerify = verifies.at(-1);
  const verify = parse(lastVerify?.envelope_json ?? null);
  if (lastVerify !== undefined && verify.passed === false) {
    const phase = facts.phases.find((p) => p.id === lastVerify.phase_id);
    const later = facts.phases.filter((p) => phase !== undefined && p.number > phase.number);
    const baseline = facts.events
      .filter((e) => e.type === "log" && e.phase_id === lastVerify.phase_id)
      .map((e) => parse(e.payload).baseline as Record<string, unknown> | undefined)
      .find((b) => typeof b === "object" && b !== null && b.passed === false);
    const suite = String(verify.suite ?? "suite");
    if (baseline !== undefined && !later.some((p) => p.kind === "agent"))
      return {
        kind: "baseline_stop",
        label: `${suite} failed before the change`,
        phase: lastVerify.phase_id,
      };
    const fixes = facts.phases.filter((p) => p.kind === "agent" && p.name === "fix").length;
    if (fixes > 0)
      return {
        kind: "fixes_exhausted",
        label: `fixes exhausted (${plural(fixes, "round")})`,
        phase: lastVerify.phase_id,
      };
    return { kind: "suite_failed", label: `${suite} failed`, phase: lastVerify.phase_id };
  }
  const review = facts.envelopes.filter((e) => e.output_type === "ReviewOutput" && e.valid === 1).at(-1);
  if (review !== undefined && parse(review.envelope_json).approved === false)
    return { kind: "review_rejected", label: "review rejected", phase: review.phase_id };
  return { kind: "not_accepted", label: "not accepted", phase: null };
}

/** Why `session` ended as it did (a running or accepted run says so). Rejects only with what the database throws. */
export async function classifyRun(db: TraceSql, session: SessionRow): Promise<RunOutcome> {
  const base = { adw_id: session.adw_id, detail: session.reason ?? "" };
  if (session.status === "running") return { ...base, kind: "running", label: "running", phase_id: null };
  if (session.status === "success" && session.accepted !== 0)
    return { ...base, kind: "accepted", label: "accepted", phase_id: null };
  const facts = await readFacts(db, session.adw_id);
  const errors = facts.events.filter((e) => e.type === "error").map((e) => ({ ...e, p: parse(e.payload) }));
  const signal = signalOf(session.reason);
  const interruptedAt = errors.find((e) => e.p.code === "interrupted");
  const failing = errors.filter((e) => e.phase_id !== null).at(-1);
  // The run's reason is the abort's own message when a signal stopped it, whichever phase failed first.
  const byAbort = signal !== null && /^interrupted by SIG[A-Z]+$/.test(session.reason ?? "");
  const interruption: Verdict = {
    kind: "interrupted",
    label: `interrupted${signal ? ` (${signal})` : ""}`,
    phase: failing?.phase_id ?? null,
  };
  let verdict: Verdict;
  if (session.status === "interrupted") {
    const own = interruptedAt?.p.closed_by === "its own sssf";
    verdict = own ? interruption : { kind: "killed", label: "killed (sssf gone)", phase: null };
  } else if (interruptedAt !== undefined || byAbort) {
    verdict = interruption;
  } else if (failing?.phase_id != null) {
    verdict = phaseVerdict(facts, failing.phase_id, failing.p);
  } else if (errors.some((e) => e.phase_id === null)) {
    verdict = { kind: "crashed", label: "crashed", phase: null };
  } else {
    verdict = workflowVerdict(facts);
  }
  const phase = facts.phases.find((p) => p.id === verdict.phase);
  const detail = base.detail || phase?.error || verdict.label;
  return {
    adw_id: session.adw_id,
    kind: verdict.kind,
    label: verdict.label,
    detail,
    phase_id: verdict.phase,
  };
}

/** The outcomes of the finished, not accepted sessions among `sessions`, by adw_id. */
export async function classifyRuns(
  db: TraceSql,
  sessions: readonly SessionRow[],
): Promise<Record<string, RunOutcome>> {
  const outcomes: Record<string, RunOutcome> = {};
  for (const session of sessions) {
    if (session.status === "running" || (session.status === "success" && session.accepted !== 0)) continue;
    outcomes[session.adw_id] = await classifyRun(db, session);
  }
  return outcomes;
}
