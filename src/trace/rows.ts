/**
 * Factories for the trace's rows, so the engine states what happened and this module states how a
 * row looks when it starts and ends (every counter zeroed, every end null until it ends).
 */

import { hostname } from "node:os";
import type { EventRow, EventType, PhaseKind, PhaseRow, ProcessRow, SessionRow } from "./events.js";
import { newId } from "./ids.js";
import { isoTime } from "./iso-time.js";

/** The columns of a new session that the caller decides. */
export type NewSession = Pick<SessionRow, "adw_id" | "workflow" | "request" | "cwd"> &
  Pick<SessionRow, "worktree" | "branch" | "base_ref" | "checkout">;

/** A session that starts now: `running`, no usage yet. */
export function newSessionRow(session: NewSession, startedAt: Date): SessionRow {
  return {
    ...session,
    status: "running",
    accepted: null,
    reason: null,
    started_at: startedAt.toISOString(),
    ended_at: null,
    duration_ms: null,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
    archived: 0,
    pid: process.pid,
    host: hostname(),
  };
}

/** A session on record joined again: `running` once more, its usage and start kept. */
export function rejoinedSessionRow(
  existing: SessionRow,
  patch: Pick<SessionRow, "workflow" | "request"> & Partial<NewSession>,
): SessionRow {
  return {
    ...existing,
    ...patch,
    status: "running",
    accepted: null,
    reason: null,
    ended_at: null,
    duration_ms: null,
    pid: process.pid,
    host: hostname(),
  };
}

/** The phase id of phase `number` of a session: `<adw_id>-p07`. */
export function phaseId(adwId: string, number: number): string {
  return `${adwId}-p${String(number).padStart(2, "0")}`;
}

/** A phase that starts now: `running`, no usage yet. */
export function newPhaseRow(phase: {
  adwId: string;
  number: number;
  name: string;
  kind: PhaseKind;
  owner: string;
  description: string;
  startedAt: Date;
}): PhaseRow {
  return {
    id: phaseId(phase.adwId, phase.number),
    adw_id: phase.adwId,
    number: phase.number,
    name: phase.name,
    kind: phase.kind,
    owner: phase.owner,
    description: phase.description,
    status: "running",
    started_at: phase.startedAt.toISOString(),
    ended_at: null,
    duration_ms: null,
    error: null,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
    context_tokens: null,
    replayed_at: null,
  };
}

/** Ends `row` at `endedAt` (in place) and returns it. */
export function endPhaseRow(row: PhaseRow, endedAt: Date): PhaseRow {
  row.ended_at = endedAt.toISOString();
  row.duration_ms = endedAt.getTime() - Date.parse(row.started_at);
  return row;
}

/** A process an agent started. */
export function startedProcessRow(process: {
  adwId: string;
  phaseId: string;
  agent: string;
  started: { pid: number; command: string[]; cwd: string; startedAt: Date };
}): ProcessRow {
  return {
    id: newId("proc"),
    adw_id: process.adwId,
    phase_id: process.phaseId,
    agent: process.agent,
    pid: process.started.pid,
    command: JSON.stringify(process.started.command),
    cwd: process.started.cwd,
    status: "running",
    exit_code: null,
    signal: null,
    started_at: process.started.startedAt.toISOString(),
    ended_at: null,
    stderr_tail: null,
  };
}

/** Ends `row` (in place) with how its process ended, and returns it. */
export function endedProcessRow(
  row: ProcessRow,
  ended: {
    status: ProcessRow["status"];
    exitCode: number | null;
    signal: string | null;
    endedAt: Date;
    stderrTail: string;
  },
): ProcessRow {
  return Object.assign(row, {
    status: ended.status,
    exit_code: ended.exitCode,
    signal: ended.signal,
    ended_at: ended.endedAt.toISOString(),
    stderr_tail: ended.stderrTail || null,
  });
}

/** What an event says; the factory adds its id, session and times. */
export interface EventInput {
  type: EventType;
  name: string;
  phaseId: string | null;
  parentId?: string | null;
  agent?: string | null;
  ok?: boolean | null;
  startedAt?: Date;
  /** null for a span still open (closed later with `endEventRow`); default: an instant event. */
  endedAt?: Date | null;
  payload?: Record<string, unknown>;
}

const okColumn = (ok: boolean | null | undefined): number | null =>
  ok === undefined || ok === null ? null : ok ? 1 : 0;

/** One event of session `adwId`. */
export function eventRow(adwId: string, input: EventInput): EventRow {
  const startedAt = input.startedAt ?? new Date();
  const endedAt = input.endedAt === undefined ? startedAt : input.endedAt;
  const started = isoTime(startedAt);
  const duration = endedAt === null ? null : endedAt.getTime() - startedAt.getTime();
  return {
    id: newId("evt"),
    adw_id: adwId,
    phase_id: input.phaseId,
    parent_id: input.parentId ?? null,
    type: input.type,
    name: input.name,
    agent: input.agent ?? null,
    ok: okColumn(input.ok),
    started_at: started,
    // Most events are instants: their end is their start, formatted once.
    ended_at: endedAt === null ? null : duration === 0 ? started : isoTime(endedAt),
    duration_ms: duration,
    payload: JSON.stringify(input.payload ?? {}),
  };
}

/** Closes a span event (agent_start…) in place and returns it. */
export function endEventRow(
  row: EventRow,
  endedAt: Date,
  ok: boolean | null,
  payload?: Record<string, unknown>,
): EventRow {
  row.ended_at = endedAt.toISOString();
  row.duration_ms = endedAt.getTime() - Date.parse(row.started_at);
  row.ok = okColumn(ok);
  if (payload) row.payload = JSON.stringify(payload);
  return row;
}
