import { redactSecrets } from "../util/secrets/redact.js";
import { redactJsonText } from "../util/secrets/redact-json.js";
import type { TraceRecord, TraceTable, TraceTables } from "./events.js";

/**
 * How a column is redacted: `text` with `redactSecrets`, `json` with `redactJsonText` (stays valid JSON),
 * `none` for ids, names, enums, paths and refs the engine reads back, timestamps and numbers.
 */
type Treatment = "text" | "json" | "none";

type TableTreatments<T extends TraceTable> = { readonly [K in keyof TraceTables[T] & string]-?: Treatment };

/**
 * Every column of every table, classified. The keys are exactly the row fields (checked at compile time),
 * so a column added to events.ts cannot be forgotten here.
 */
const TREATMENTS: { readonly [T in TraceTable]: TableTreatments<T> } = {
  sessions: {
    adw_id: "none",
    workflow: "none",
    request: "text",
    status: "none",
    accepted: "none",
    reason: "text",
    // Where the run worked: read back to rejoin it, never free text.
    cwd: "none",
    started_at: "none",
    ended_at: "none",
    duration_ms: "none",
    input_tokens: "none",
    output_tokens: "none",
    cache_read_tokens: "none",
    cache_write_tokens: "none",
    cost_usd: "none",
    archived: "none",
    worktree: "none",
    branch: "none",
    base_ref: "none",
    checkout: "none",
    pid: "none",
    host: "none",
  },
  phases: {
    id: "none",
    adw_id: "none",
    number: "none",
    // Also the stem of the phase's prompt and envelope file names.
    name: "none",
    kind: "none",
    owner: "none",
    description: "text",
    status: "none",
    started_at: "none",
    ended_at: "none",
    duration_ms: "none",
    error: "text",
    input_tokens: "none",
    output_tokens: "none",
    cache_read_tokens: "none",
    cache_write_tokens: "none",
    cost_usd: "none",
    context_tokens: "none",
    replayed_at: "none",
  },
  events: {
    id: "none",
    adw_id: "none",
    phase_id: "none",
    parent_id: "none",
    type: "none",
    name: "text",
    agent: "none",
    ok: "none",
    started_at: "none",
    ended_at: "none",
    duration_ms: "none",
    payload: "json",
  },
  envelopes: {
    id: "none",
    adw_id: "none",
    phase_id: "none",
    agent: "none",
    attempt: "none",
    reason: "none",
    output_type: "none",
    valid: "none",
    // The agent's own `status` field, whatever it wrote.
    status: "text",
    envelope_json: "json",
    raw_text: "text",
    errors: "json",
    created_at: "none",
    accepted: "none",
  },
  gate_results: {
    id: "none",
    adw_id: "none",
    phase_id: "none",
    envelope_id: "none",
    gate: "none",
    ok: "none",
    checks: "json",
    violations: "json",
    created_at: "none",
  },
  processes: {
    id: "none",
    adw_id: "none",
    phase_id: "none",
    agent: "none",
    pid: "none",
    command: "json",
    cwd: "none",
    status: "none",
    exit_code: "none",
    signal: "none",
    started_at: "none",
    ended_at: "none",
    stderr_tail: "text",
  },
  agent_sessions: {
    adw_id: "none",
    agent: "none",
    session_id: "none",
    model: "none",
    coding_agent: "none",
    sends: "none",
    created_at: "none",
    updated_at: "none",
  },
  steps: {
    id: "none",
    adw_id: "none",
    attempt: "none",
    key: "text",
    position: "none",
    phase_id: "none",
    op: "none",
    input_hash: "none",
    // Redacted before hashing and storing by the journal; redacting again keeps it so.
    result_json: "json",
    replayed: "none",
    created_at: "none",
  },
};

interface Plan {
  text: readonly string[];
  json: readonly string[];
}

function planOf(treatments: Readonly<Record<string, Treatment>>): Plan {
  const entries = Object.entries(treatments);
  return {
    text: entries.filter(([, how]) => how === "text").map(([column]) => column),
    json: entries.filter(([, how]) => how === "json").map(([column]) => column),
  };
}

const PLANS = new Map<string, Plan>(
  Object.entries(TREATMENTS).map(([table, treatments]) => [table, planOf(treatments)]),
);

/**
 * A copy of `record` (the row copied too, so later changes by the caller do not leak in) with secrets
 * redacted from every free-text column of its table (`redactSecrets`: a session's request and reason, a
 * phase's description and error, an event's name, an envelope's status and raw text, a process's stderr
 * tail) and every JSON column (`redactJsonText`, kept valid JSON: an event's payload, an envelope's JSON
 * and problems, a gate's checks and violations, a process's argv). Ids, names, enums, paths, timestamps and
 * numbers are copied as they are. Contract: never throws; never mutates `record`; idempotent.
 */
export function redactRecord(record: TraceRecord): TraceRecord {
  const row: Record<string, unknown> = { ...record.row };
  const plan = PLANS.get(record.table);
  if (plan !== undefined) {
    for (const column of plan.text) {
      const value = row[column];
      if (typeof value === "string") row[column] = redactSecrets(value);
    }
    for (const column of plan.json) {
      const value = row[column];
      if (typeof value === "string") row[column] = redactJsonText(value);
    }
  }
  // The same row type as `record`: only string columns were replaced, by strings.
  return { table: record.table, row } as unknown as TraceRecord;
}
