import type { EnvelopeRow, EventRow, GateResultRow } from "../../../../trace/events.js";
import type { PhaseDetail, PromptFile, Versioned } from "../../../server/api-types.js";
import { parseJson } from "../format.js";

/** What an `agent_start` span's payload holds once the send ended. */
export interface SendSummary {
  attempt?: number;
  reason?: string;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_tokens?: number;
    cache_write_tokens?: number;
    cost?: number;
  };
  context_tokens?: number | null;
  error_kind?: string;
  error?: string;
}

/** One send of a phase: the prompt, the agent's span, the envelope attempt and the gates run on it. */
export interface Attempt {
  key: string;
  agent: string;
  attempt: number;
  reason: string;
  prompt: PromptFile | undefined;
  span: Versioned<EventRow> | undefined;
  summary: SendSummary;
  envelope: Versioned<EnvelopeRow> | undefined;
  gates: Versioned<GateResultRow>[];
}

/** Every send of the phase in order, joining prompts, spans, envelopes and gate results by attempt. */
export function attemptsOf(detail: PhaseDetail): Attempt[] {
  const attempts = new Map<string, Attempt>();
  const at = (agent: string, attempt: number, reason: string): Attempt => {
    const key = `${agent}#${attempt}`;
    let entry = attempts.get(key);
    if (entry === undefined) {
      entry = {
        key,
        agent,
        attempt,
        reason,
        prompt: undefined,
        span: undefined,
        summary: {},
        envelope: undefined,
        gates: [],
      };
      attempts.set(key, entry);
    }
    return entry;
  };
  for (const prompt of detail.prompts) at(prompt.agent, prompt.attempt, prompt.reason).prompt = prompt;
  for (const event of detail.events) {
    if (event.type !== "agent_start" || !event.agent) continue;
    const summary = (parseJson(event.payload) ?? {}) as SendSummary;
    if (typeof summary.attempt !== "number") continue;
    const entry = at(event.agent, summary.attempt, summary.reason ?? "initial");
    entry.span = event;
    entry.summary = summary;
  }
  for (const envelope of detail.envelopes) {
    const entry = at(envelope.agent, envelope.attempt, envelope.reason);
    entry.envelope = envelope;
    entry.gates = detail.gate_results.filter((g) => g.envelope_id === envelope.id);
  }
  return [...attempts.values()].sort((a, b) => a.attempt - b.attempt || a.agent.localeCompare(b.agent));
}

/** What a reason means, in words. */
export function reasonLabel(reason: string): string {
  if (reason === "json_fix") return "correction after invalid JSON";
  if (reason === "gate_fix") return "correction after gate violations";
  return "initial call";
}
