/**
 * How a replay's phases compare with the record (docs/replay.md): per phase, whether each decision
 * (each reply valid or not, its status, its gates) is the one the record holds.
 */

import type { EnvelopeRow, GateResultRow, PhaseRow } from "../trace/events.js";
import { type RecordedAttempt, type RecordedPhase, recordedAttempts } from "./replay-record.js";
import type { CodeStep, ReplayState, ReplayStop } from "./replay-state.js";

export type PhaseOutcome =
  | "same"
  | "now rejected"
  | "now accepted"
  | "now corrected"
  | "not in the record"
  | "no longer run"
  | "not reached";

/** One phase of the report: what the record decided, what the replay decided, and why they differ. */
export interface PhaseVerdict {
  position: number;
  phase: string;
  kind: string;
  owner: string;
  outcome: PhaseOutcome;
  /** Why it differs (a gate's violation, a schema problem, a send the record lacks); "" when the same. */
  detail: string;
  /** Sends of the record and of the replay (agent phases). */
  recorded_sends: number;
  replayed_sends: number;
}

/** Outcomes that do not count as a changed decision. */
const UNCHANGED: ReadonlySet<PhaseOutcome> = new Set(["same", "not reached"]);

export function isChange(outcome: PhaseOutcome): boolean {
  return !UNCHANGED.has(outcome);
}

const accepted = (a: RecordedAttempt): boolean => a.valid && a.status === "success" && a.gatesOk;

function decision(a: RecordedAttempt): string {
  if (!a.valid) return "invalid";
  if (a.status !== "success") return `status ${a.status ?? "none"}`;
  return a.gatesOk ? "accepted" : "gates failed";
}

/** Why an attempt was not accepted: its schema problems, its status, or its gates' violations. */
function why(a: RecordedAttempt): string {
  if (!a.valid) return `schema: ${a.problems.join("; ") || "the reply did not parse"}`;
  if (a.status !== "success") return `status ${a.status ?? "none"}`;
  return a.violations.join("; ");
}

function agentVerdict(
  base: Omit<PhaseVerdict, "outcome" | "detail" | "recorded_sends" | "replayed_sends">,
  recorded: RecordedAttempt[],
  replayed: RecordedAttempt[],
  stoppedHere: string | null,
): PhaseVerdict {
  const counts = { recorded_sends: recorded.length, replayed_sends: replayed.length };
  const last = replayed.at(-1);
  const recAccepted = recorded.some(accepted);
  const repAccepted = replayed.some(accepted);
  if (stoppedHere !== null) {
    // The current gates or output type turned down a recorded reply; the correction has no reply.
    if (last !== undefined && !accepted(last) && recAccepted)
      return {
        ...base,
        ...counts,
        outcome: "now rejected",
        detail: `${why(last)} (the correction it asks for is not in the record: the replay stops here)`,
      };
    return { ...base, ...counts, outcome: "not in the record", detail: stoppedHere };
  }
  const same =
    recorded.length === replayed.length &&
    recorded.every((a, i) => decision(a) === decision(replayed[i] as RecordedAttempt));
  if (same) return { ...base, ...counts, outcome: "same", detail: "" };
  if (recAccepted && !repAccepted)
    return {
      ...base,
      ...counts,
      outcome: "now rejected",
      detail: last === undefined ? "no reply" : why(last),
    };
  if (!recAccepted && repAccepted) {
    const first = recorded.find((a) => !accepted(a));
    return { ...base, ...counts, outcome: "now accepted", detail: first ? `recorded: ${why(first)}` : "" };
  }
  const i = recorded.findIndex(
    (a, k) => replayed[k] === undefined || decision(a) !== decision(replayed[k] as RecordedAttempt),
  );
  const at = i < 0 ? replayed.length - 1 : i;
  const rec = recorded[at];
  const rep = replayed[at];
  const need =
    replayed.length > recorded.length
      ? "a correction is now needed"
      : replayed.length < recorded.length
        ? "a correction is no longer needed"
        : "the corrections differ";
  const detail = `${need}: attempt ${at + 1} was ${rec ? decision(rec) : "not sent"}${rec && !accepted(rec) ? ` (${why(rec)})` : ""}, now ${rep ? decision(rep) : "not sent"}${rep && !accepted(rep) ? ` (${why(rep)})` : ""}`;
  return { ...base, ...counts, outcome: "now corrected", detail };
}

function statusOf(result: unknown): string | null {
  const status = (result as { status?: unknown } | null)?.status;
  return typeof status === "string" ? status : null;
}

function codeVerdict(
  base: Omit<PhaseVerdict, "outcome" | "detail" | "recorded_sends" | "replayed_sends">,
  steps: CodeStep[],
): PhaseVerdict {
  const counts = { recorded_sends: 0, replayed_sends: 0 };
  for (const step of steps) {
    if (!("rerun" in step)) continue;
    const before = statusOf(step.recorded);
    const now = statusOf(step.rerun);
    if (before === now) continue;
    const outcome = now === "success" ? "now accepted" : "now rejected";
    const summary = (step.rerun as { summary?: unknown } | null)?.summary;
    return {
      ...base,
      ...counts,
      outcome,
      detail: `${step.key} was ${before ?? "none"}, now ${now ?? "none"}${typeof summary === "string" ? `: ${summary}` : ""}`,
    };
  }
  return { ...base, ...counts, outcome: "same", detail: "" };
}

/** The replay's attempts that got a recorded reply: the refused send of a stop has a row too. */
function answered(attempts: RecordedAttempt[], stop: ReplayStop | null): RecordedAttempt[] {
  if (stop?.send == null || stop.agent === null) return attempts;
  let seen = 0;
  return attempts.filter((a) => a.agent !== stop.agent || ++seen < (stop.send as number));
}

/** The replay's rows, as read back from its own trace. */
export interface ReplayedRows {
  phases: PhaseRow[];
  envelopes: EnvelopeRow[];
  gates: GateResultRow[];
}

/** Every phase of the record and of the replay, by position, with its outcome. */
export function comparePhases(state: ReplayState, replayed: ReplayedRows): PhaseVerdict[] {
  const verdicts: PhaseVerdict[] = [];
  const stop = state.stop;
  const positions = new Set([...state.record.phases.keys(), ...state.started.keys()]);
  if (stop !== null && stop.position > 0) positions.add(stop.position);
  // Replayed rows in the order their phases started: the positions the replay gave them.
  const started = [...state.started.keys()].sort((a, b) => a - b);
  const rowAt = new Map<number, PhaseRow>();
  replayed.phases.forEach((row, i) => {
    const position = started[i];
    if (position !== undefined) rowAt.set(position, row);
  });
  for (const position of [...positions].sort((a, b) => a - b)) {
    const recorded: RecordedPhase | undefined = state.record.phases.get(position);
    const row = rowAt.get(position);
    const phaseStop = stop !== null && stop.position === position ? stop : null;
    const base = {
      position,
      phase: row?.name ?? phaseStop?.phase ?? recorded?.row.name ?? "",
      kind: row?.kind ?? recorded?.row.kind ?? "agent",
      owner: row?.owner ?? recorded?.row.owner ?? "",
    };
    const sends = { recorded_sends: recorded?.attempts.length ?? 0, replayed_sends: 0 };
    if (row === undefined) {
      if (phaseStop !== null)
        verdicts.push({ ...base, ...sends, outcome: "not in the record", detail: phaseStop.why });
      else
        verdicts.push({
          ...base,
          ...sends,
          outcome: stop === null ? "no longer run" : "not reached",
          detail: stop === null ? "the current workflow no longer runs this phase" : "",
        });
      continue;
    }
    if (row.kind === "agent") {
      const attempts = recordedAttempts(
        replayed.envelopes.filter((e) => e.phase_id === row.id),
        replayed.gates.filter((g) => g.phase_id === row.id),
      );
      verdicts.push(
        agentVerdict(base, recorded?.attempts ?? [], answered(attempts, phaseStop), phaseStop?.why ?? null),
      );
    } else if (phaseStop !== null) {
      verdicts.push({ ...base, ...sends, outcome: "not in the record", detail: phaseStop.why });
    } else {
      verdicts.push(
        codeVerdict(
          base,
          state.codeSteps.filter((s) => s.position === position),
        ),
      );
    }
  }
  return verdicts;
}
