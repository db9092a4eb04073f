/**
 * The pieces a session's recovery is made of (recover-session.ts): the names of the files it reads,
 * the rows events.jsonl already gave, and the rows it makes from a saved prompt, a recorded send and an
 * envelope file.
 */
import { readFileSync, statSync } from "node:fs";
import type { OutputType } from "../envelope/output-type.js";
import { parseEnvelope } from "../envelope/parse-envelope.js";
import { builtinOutputTypes } from "../envelope/schemas.js";
import type { RecordedSend } from "../runtimes/runtime.js";
import type { EnvelopeRow, PhaseRow, TraceRecord } from "../trace/events.js";
import { newPhaseRow, phaseId } from "../trace/rows.js";

/** One send, from its saved prompt. */
export interface PromptFile {
  number: number;
  phase: string;
  attempt: number;
  reason: EnvelopeRow["reason"];
  file: string;
}

export const PROMPT_FILE = /^p(\d+)-(.+)-(\d+)-(initial|json_fix|gate_fix)\.user\.md$/;
export const CODE_ENVELOPE_FILE = /^p(\d+)-(.+?)(?:-(\d+))?\.envelope\.json$/;
export const OUTPUT_TYPE_NAMED = /matching `([A-Za-z_][\w]*)`/;
/** Folders of a session that are not an agent's. */
export const NOT_AGENTS = new Set(["context_handoff", "code", "changes"]);

export function mtime(file: string): string {
  return statSync(file).mtime.toISOString();
}

export function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Keys of the rows events.jsonl gave, fed one record at a time. */
export class KnownRows {
  readonly phases = new Set<string>();
  /** `phase_id agent attempt` of each envelope row. */
  readonly envelopes = new Set<string>();
  /** `agent name started_at` of each tool call. */
  readonly toolCalls = new Set<string>();
  readonly agentSessions = new Set<string>();
  session = false;

  saw(record: TraceRecord): void {
    if (record.table === "sessions") this.session = true;
    else if (record.table === "phases") this.phases.add(record.row.id);
    else if (record.table === "envelopes")
      this.envelopes.add(`${record.row.phase_id} ${record.row.agent} ${record.row.attempt}`);
    else if (record.table === "agent_sessions") this.agentSessions.add(record.row.agent);
    else if (record.table === "events" && record.row.type === "tool_call")
      this.toolCalls.add(`${record.row.agent} ${record.row.name} ${record.row.started_at}`);
  }
}

export const TABLE_ORDER = ["sessions", "phases", "agent_sessions", "envelopes", "events"];

export function order(record: TraceRecord): number {
  return TABLE_ORDER.indexOf(record.table);
}

/** True when `text`'s envelope is `accepted` (envelope.json is the redacted, defaulted envelope). */
export function sameEnvelope(text: string, accepted: Record<string, unknown>): boolean {
  const parsed = parseEnvelope(text, builtinOutputTypes.GenericOutput);
  if (!parsed.ok || !isObject(parsed.json)) return false;
  return Object.entries(parsed.json).every(
    ([key, value]) => JSON.stringify(accepted[key]) === JSON.stringify(value),
  );
}

export function addUsage(phase: PhaseRow, send: RecordedSend): void {
  phase.input_tokens += send.usage.inputTokens;
  phase.output_tokens += send.usage.outputTokens;
  phase.cache_read_tokens += send.usage.cacheReadTokens;
  phase.cache_write_tokens += send.usage.cacheWriteTokens;
  phase.cost_usd += send.usage.costUsd;
}

export function recoveredPhase(
  adwId: string,
  prompt: PromptFile,
  owner: string,
  startedAt: string,
): PhaseRow {
  const row = newPhaseRow({
    adwId,
    number: prompt.number,
    name: prompt.phase,
    kind: "agent",
    owner,
    description: "",
    startedAt: new Date(0),
  });
  // The time as the file wrote it, not as a Date would print it again.
  return {
    ...row,
    status: "fail",
    started_at: startedAt,
    error: "rebuilt from the session files: no accepted envelope of this phase is on file",
  };
}

/** The envelope row of one send: the reply judged as the call judged it, by its output type. */
export function recoveredEnvelope(send: {
  adwId: string;
  agent: string;
  prompt: PromptFile;
  text: string | null;
  accepted: boolean;
}): EnvelopeRow {
  const { prompt } = send;
  const promptText = readFileSync(prompt.file, "utf8");
  const typeName = OUTPUT_TYPE_NAMED.exec(promptText)?.[1] ?? "";
  const builtin = (builtinOutputTypes as Record<string, OutputType>)[typeName];
  const text = send.text ?? "";
  // A type of the workflow's own is not on file: its replies are judged by the fields every envelope has.
  const parsed = send.text === null ? null : parseEnvelope(text, builtin ?? builtinOutputTypes.GenericOutput);
  const valid = parsed?.ok === true;
  const envelope =
    parsed?.ok === true
      ? ((builtin === undefined ? parsed.json : parsed.envelope) as { status?: unknown })
      : null;
  const id = phaseId(send.adwId, prompt.number);
  return {
    id: `env_file_${id}_${send.agent}_${prompt.attempt}`,
    adw_id: send.adwId,
    phase_id: id,
    agent: send.agent,
    attempt: prompt.attempt,
    reason: prompt.reason,
    output_type: typeName,
    valid: valid ? 1 : 0,
    status: envelope !== null && typeof envelope.status === "string" ? envelope.status : null,
    envelope_json: envelope === null ? null : JSON.stringify(envelope),
    raw_text: text,
    errors: JSON.stringify(
      parsed === null
        ? [{ path: "", message: "the send ended without a reply" }]
        : parsed.ok
          ? []
          : parsed.problems,
    ),
    created_at: mtime(prompt.file),
    accepted: send.accepted && valid ? 1 : 0,
  };
}
