/**
 * Wire types of the trace: SQLite rows and the lines of `events.jsonl`. Field names are the seed's
 * snake_case. This module is the single source of truth; the CLI, the rebuild and the UI import it.
 * Timestamps are ISO-8601 strings in UTC with millisecond precision.
 */

export const EVENT_TYPES = [
  "phase_start",
  "phase_end",
  "agent_start",
  "agent_end",
  "tool_call",
  "handoff",
  "gate_pass",
  "gate_fail",
  "log",
  "error",
  /** The agent's latest line of text while it streams (payload `{ text }`), at most one per phase per 500 ms. */
  "agent_text",
  /** A tool call the agent started (payload `{ tool, args }`); its `tool_call` follows when it ends. */
  "tool_start",
  /** `sssf merge` (or the UI's Merge) landed the run's branch: payload `{ base, branch, from, to, method, commits, files }`. */
  "run_merged",
  /** A send refused by a rate limit or spent quota is waited out: payload `{ error_kind, retry_after_ms?, resets_at?, wait_ms, entry }`. */
  "rate_limited",
  /** A refused send moves to the agent's next fallback: payload `{ error_kind, retry_after_ms?, resets_at?, from, to }`. */
  "fallback",
  /** A phase's corrections ran out on one model of the agent's ladder; it starts again, fresh, on the next: payload `{ from, to, rung, reason, first_attempt }`. */
  "escalation",
  /**
   * One attempt of a best-of phase (`name` "attempt <k> of <N>", ok 1 passed / 0 not): payload `{ attempt, of, mode, status:
   * "passed"|"failed"|"stopped", winner, reason, changed_lines, files, cost_usd, input_tokens, output_tokens,
   * agent_session_id, envelope_ids, gates: [{ gate, ok, violations }], check: { ok, summary } | null, diff }`.
   */
  "attempt",
  /** A best-of phase's choice (`name` "winner attempt <k>" or "no attempt passed"): payload `{ attempts, mode, winner, reason }`. */
  "best_of",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** `interrupted`: the run's sssf died (or was killed) before finalizing; closed by the reaper. */
export type SessionStatus = "running" | "success" | "fail" | "interrupted";
export type PhaseStatus = "running" | "success" | "fail" | "interrupted";
export type PhaseKind = "engineer" | "agent" | "code";

export interface SessionRow {
  adw_id: string;
  workflow: string;
  request: string;
  status: SessionStatus;
  accepted: number | null;
  reason: string | null;
  cwd: string;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  archived: number;
  /** The run's own git worktree (absolute), or null when it ran in the checkout itself. */
  worktree: string | null;
  /** The run's branch (`sssf/<workflow>/<adw_id>`; `sssf/<adw_id>` in older rows), or null in place. */
  branch: string | null;
  /** The commit the run's branch started from, or null in place. */
  base_ref: string | null;
  /** The operator's checkout the run was started from (`cwd` is where it worked); null in older rows. */
  checkout: string | null;
  /** The pid of the sssf process that runs (or last ran) the session, to tell a live run from a dead one. */
  pid: number | null;
  /** The host of that process. */
  host: string | null;
}

export interface PhaseRow {
  id: string;
  adw_id: string;
  number: number;
  name: string;
  kind: PhaseKind;
  owner: string;
  description: string;
  status: PhaseStatus;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  error: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  /** Tokens in the context window at the last send (context occupancy). */
  context_tokens: number | null;
  /** When a resume last answered this phase from the journal instead of running it; null otherwise. */
  replayed_at: string | null;
}

export interface EventRow {
  id: string;
  adw_id: string;
  phase_id: string | null;
  parent_id: string | null;
  type: EventType;
  name: string;
  agent: string | null;
  ok: number | null;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  /** JSON object with the event's details (args, result snippet, usage, message…), secrets redacted. */
  payload: string;
}

export interface EnvelopeRow {
  id: string;
  adw_id: string;
  phase_id: string;
  agent: string;
  attempt: number;
  /** `initial`, `json_fix` (a correction after invalid JSON) or `gate_fix` (after gate violations). */
  reason: "initial" | "json_fix" | "gate_fix";
  output_type: string;
  valid: number;
  status: string | null;
  envelope_json: string | null;
  raw_text: string;
  errors: string;
  created_at: string;
  /**
   * 1 when this envelope crossed the phase boundary (valid, `status: "success"`, every gate passed):
   * what a rejoin hands the next agent. 0 otherwise; null in records written before the column existed.
   */
  accepted: number | null;
}

export interface GateResultRow {
  id: string;
  adw_id: string;
  phase_id: string;
  envelope_id: string;
  gate: string;
  ok: number;
  /** JSON array of `{item, ok, note}`: what the gate examined, passing checks included. */
  checks: string;
  violations: string;
  created_at: string;
}

export interface ProcessRow {
  id: string;
  adw_id: string;
  phase_id: string | null;
  agent: string | null;
  pid: number;
  command: string;
  cwd: string;
  /** `interrupted`: still running when its sssf died; its group was ended by the reaper. */
  status: "running" | "exited" | "killed" | "timeout" | "spawn_error" | "interrupted";
  exit_code: number | null;
  signal: string | null;
  started_at: string;
  ended_at: string | null;
  stderr_tail: string | null;
}

export interface AgentSessionRow {
  adw_id: string;
  agent: string;
  session_id: string;
  model: string;
  coding_agent: string;
  sends: number;
  created_at: string;
  updated_at: string;
}

/**
 * One durable step of a run: a phase operation (an agent call, a suite, a commit, a captured diff, an
 * engineer's answer) with the hash of its inputs and its result, so a resume answers it again without
 * doing it (docs/resume.md).
 */
export interface StepRow {
  /** `<adw_id>-a<attempt>-<key>`. */
  id: string;
  adw_id: string;
  /** Which run of the session recorded it: 1 for the first, +1 per resume or join. */
  attempt: number;
  /** The idempotency key inside the attempt: `p<position>.<phase name>.<op>#<n>`. */
  key: string;
  /** The phase's position among the attempt's phases (1-based, in start order). */
  position: number;
  phase_id: string;
  /** `phase` (the phase itself, written when it succeeded), `call`, `suite`, `changes`, `commit` or `ask`. */
  op: string;
  /** sha256 of the op's inputs (redacted JSON): a changed prompt or argument no longer matches. */
  input_hash: string;
  /** JSON of the op's result (redacted). */
  result_json: string;
  /** 1 when this attempt answered the step from an earlier attempt's journal. */
  replayed: number;
  created_at: string;
}

/** Table name → row type. The seven seed tables, and the journal of durable steps. */
export interface TraceTables {
  sessions: SessionRow;
  phases: PhaseRow;
  events: EventRow;
  envelopes: EnvelopeRow;
  gate_results: GateResultRow;
  processes: ProcessRow;
  agent_sessions: AgentSessionRow;
  steps: StepRow;
}
export type TraceTable = keyof TraceTables;

export const TRACE_TABLES: readonly TraceTable[] = [
  "sessions",
  "phases",
  "events",
  "envelopes",
  "gate_results",
  "processes",
  "agent_sessions",
  "steps",
];

/** Primary key columns per table; a record with the same key replaces the earlier one. */
export const PRIMARY_KEYS: { readonly [T in TraceTable]: readonly (keyof TraceTables[T] & string)[] } = {
  sessions: ["adw_id"],
  phases: ["id"],
  events: ["id"],
  envelopes: ["id"],
  gate_results: ["id"],
  processes: ["id"],
  agent_sessions: ["adw_id", "agent"],
  steps: ["id"],
};

/**
 * One line of `events.jsonl`: a full row written to one table (an upsert by primary key).
 * Replaying every line of every session in order rebuilds the database exactly.
 */
export type TraceRecord = { [T in TraceTable]: { table: T; row: TraceTables[T] } }[TraceTable];
