/**
 * The stored run a replay answers from (docs/replay.md): its session row, its phases by position, each
 * agent phase's replies in send order and each code phase's journaled step results. Read-only.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { buildJournal, type StartStep } from "../engine/durable/step-journal.js";
import type { SendErrorKind } from "../runtimes/runtime.js";
import type { EnvelopeRow, GateResultRow, PhaseRow, SessionRow, StepRow } from "../trace/events.js";
import type { TraceSql } from "../trace/store.js";
import {
  getSession,
  listEnvelopes,
  listEvents,
  listGateResults,
  listPhases,
  listSteps,
} from "../trace/store-queries.js";
import { type RecordedToolCall, toolCallsByAttempt } from "./replay-effects.js";

/** One recorded send's outcome: what the engine decided about the reply. */
export interface RecordedAttempt {
  attempt: number;
  agent: string;
  reason: EnvelopeRow["reason"];
  rawText: string;
  valid: boolean;
  status: string | null;
  accepted: boolean;
  /** Schema or section problems of an invalid reply. */
  problems: string[];
  /** Gate violations as `gate: violation`, empty when every gate passed (or none ran). */
  violations: string[];
  gatesOk: boolean;
  /** The send's tool calls, told again (and their files written) when the replay answers it. */
  toolCalls: RecordedToolCall[];
  /** The send itself failed (an exit, a timeout): the replay fails it the same way. */
  failed?: { kind: SendErrorKind; error: string };
}

/** One phase of the record, at its position in the run. */
export interface RecordedPhase {
  position: number;
  row: PhaseRow;
  /** Agent phases: every envelope attempt, in order; code phases: none. */
  attempts: RecordedAttempt[];
  /** Journaled step results by `<op>#<n>` (suites, commits, captured diffs, answers). */
  steps: Map<string, unknown>;
}

export interface RecordedRun {
  session: SessionRow;
  /** The session's folder of the original (read only, never written). */
  sessionDir: string;
  start: StartStep | null;
  /** True when the session has a step journal (a trace written by sssf with `sssf resume`). */
  journaled: boolean;
  phases: Map<number, RecordedPhase>;
  /** What is missing from the record without stopping the replay (a missing `raw_output.jsonl`). */
  notes: string[];
}

/** A JSON list of problems or violations as lines: `{path, message}` reads `path: message`. */
function parseList(json: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value.map((item: unknown) => {
    if (typeof item === "string") return item;
    const { path: at, message } = (item ?? {}) as { path?: unknown; message?: unknown };
    if (typeof message !== "string") return JSON.stringify(item);
    return typeof at === "string" && at !== "" ? `${at}: ${message}` : message;
  });
}

/** The attempts of one phase, with their gates' verdicts. */
export function recordedAttempts(envelopes: EnvelopeRow[], gates: GateResultRow[]): RecordedAttempt[] {
  return [...envelopes]
    .sort((a, b) => a.attempt - b.attempt)
    .map((row) => {
      const mine = gates.filter((gate) => gate.envelope_id === row.id);
      const violations = mine
        .filter((gate) => gate.ok === 0)
        .flatMap((gate) => parseList(gate.violations).map((v) => `${gate.gate}: ${v}`));
      return {
        attempt: row.attempt,
        agent: row.agent,
        reason: row.reason,
        rawText: row.raw_text,
        valid: row.valid === 1,
        status: row.status,
        accepted: row.accepted === 1,
        problems: parseList(row.errors),
        violations,
        gatesOk: mine.every((gate) => gate.ok === 1),
        toolCalls: [],
      };
    });
}

/**
 * Positions of the phases, as the run started them. The newest attempt's journal names most of them
 * (a resumed run keeps its replayed rows); a phase it does not name (a failed phase, a trace older than
 * the journal) takes the next free position by its number. Interrupted rows were re-run: left out.
 */
function positionsOf(phases: PhaseRow[], steps: StepRow[], attempt: number): Map<number, PhaseRow> {
  const byId = new Map(phases.map((row) => [row.id, row]));
  const placed = new Map<number, PhaseRow>();
  for (const step of steps) {
    const row = byId.get(step.phase_id);
    if (step.attempt !== attempt || step.position <= 0 || row === undefined) continue;
    if (!placed.has(step.position)) placed.set(step.position, row);
  }
  const used = new Set([...placed.values()].map((row) => row.id));
  let position = 1;
  for (const row of phases) {
    if (used.has(row.id) || row.status === "interrupted") continue;
    while (placed.has(position)) position++;
    placed.set(position, row);
  }
  return placed;
}

/** The journaled results of one position's steps by `<op>#<n>`. */
function stepResults(steps: StepRow[], attempt: number, position: number): Map<string, unknown> {
  const results = new Map<string, unknown>();
  for (const step of steps) {
    if (step.attempt !== attempt || step.position !== position) continue;
    const op = /\.([a-z]+#\d+)$/.exec(step.key)?.[1];
    if (op === undefined) continue;
    try {
      results.set(op, JSON.parse(step.result_json) as unknown);
    } catch {
      // An unreadable result is a step not in the record: the replay stops there, saying so.
    }
  }
  return results;
}

/**
 * A phase that failed on a send that failed (`agent X call failed (<kind>): …`, send-until-valid.ts)
 * ends with that send's row: marked so the replay fails it the same way instead of parsing its text.
 */
function markFailedSend(row: PhaseRow, attempts: RecordedAttempt[]): void {
  const kind = /call failed \(([a-z_]+)\)/.exec(row.error ?? "")?.[1] as SendErrorKind | undefined;
  const last = attempts.at(-1);
  if (kind === undefined || last === undefined || last.valid || row.status !== "fail") return;
  // A limit waited out again would only wait: the replay fails the send outright.
  const replayKind = kind === "rate_limited" || kind === "usage_limit" ? "agent_error" : kind;
  last.failed = { kind: replayKind, error: last.problems[0] ?? "agent call failed" };
}

/** Reads the stored run `adwId`; undefined when the trace has no such session. */
export async function readRecordedRun(
  db: TraceSql,
  adwId: string,
  sessionsDir: string,
): Promise<RecordedRun | undefined> {
  const session = await getSession(db, adwId);
  if (session === undefined) return undefined;
  const [phases, steps, envelopes, gates, spans, tools] = await Promise.all([
    listPhases(db, adwId),
    listSteps(db, adwId),
    listEnvelopes(db, adwId),
    listGateResults(db, adwId),
    listEvents(db, adwId, { type: "agent_start" }),
    listEvents(db, adwId, { type: "tool_call" }),
  ]);
  const events = [...spans, ...tools];
  const journal = buildJournal(steps, phases);
  const sessionDir = path.join(sessionsDir, adwId);
  const notes: string[] = [];
  const recorded = new Map<number, RecordedPhase>();
  for (const [position, row] of positionsOf(phases, steps, journal.attempt)) {
    const attempts =
      row.kind === "agent"
        ? recordedAttempts(
            envelopes.filter((e) => e.phase_id === row.id),
            gates.filter((g) => g.phase_id === row.id),
          )
        : [];
    markFailedSend(row, attempts);
    if (attempts.length > 0) {
      const calls = toolCallsByAttempt(row.id, events);
      for (const attempt of attempts) attempt.toolCalls = calls.get(attempt.attempt) ?? [];
    }
    recorded.set(position, { position, row, attempts, steps: stepResults(steps, journal.attempt, position) });
  }
  const agents = new Set(
    envelopes
      .filter((e) => phases.some((p) => p.id === e.phase_id && p.kind === "agent"))
      .map((e) => e.agent),
  );
  for (const agent of [...agents].sort()) {
    const file = path.join(sessionDir, agent, "raw_output.jsonl");
    if (!existsSync(file))
      notes.push(`${file} is missing: ${agent}'s replies are answered from the envelopes table alone`);
  }
  return {
    session,
    sessionDir,
    start: journal.start,
    journaled: journal.attempt > 0,
    phases: recorded,
    notes,
  };
}
