/**
 * The attributes of each kind of span, from the trace's rows: the GenAI semantic conventions where they
 * apply (the constants of `@opentelemetry/semantic-conventions`), `sssf.*` for the rest. Every string
 * goes through sssf's redaction once more (the rows already went through it when they were written).
 * Loaded only when an export is on (docs/observability.md lists every attribute).
 */
import type { Attributes, AttributeValue } from "@opentelemetry/api";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_WORKFLOW_NAME,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} from "@opentelemetry/semantic-conventions/incubating";
import type { EventRow, PhaseRow, SessionRow } from "../trace/events.js";
import { redactSecrets } from "../util/secrets/redact.js";

/** Longest string attribute kept (tool arguments, reasons): backends refuse or truncate huge ones. */
const MAX_TEXT = 4096;

/** `attributes` without undefined or null values, every string redacted and bounded. */
export function cleanAttributes(attributes: Record<string, AttributeValue | null | undefined>): Attributes {
  const clean: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    clean[key] = typeof value === "string" ? redactSecrets(value).slice(0, MAX_TEXT) : value;
  }
  return clean;
}

/** A JSON column parsed, or {} when it is not an object. */
export function payloadOf(row: { payload: string }): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(row.payload);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

const numberOf = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
const stringOf = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** The run's outcome in one word: running, accepted, rejected or interrupted. */
export function runOutcome(session: SessionRow): string {
  if (session.status === "running" || session.status === "interrupted") return session.status;
  return session.accepted === 1 ? "accepted" : "rejected";
}

/** The root span of one run. */
export function runAttributes(session: SessionRow): Attributes {
  return cleanAttributes({
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
    [ATTR_GEN_AI_WORKFLOW_NAME]: session.workflow,
    "sssf.adw_id": session.adw_id,
    "sssf.workflow": session.workflow,
    "sssf.status": session.status,
    "sssf.outcome": runOutcome(session),
    "sssf.accepted": session.accepted === null ? undefined : session.accepted === 1,
    "sssf.reason": session.reason,
    "sssf.branch": session.branch,
    "sssf.cost_usd": session.cost_usd,
    "sssf.usage.input_tokens": session.input_tokens,
    "sssf.usage.output_tokens": session.output_tokens,
    "sssf.usage.cache_read_tokens": session.cache_read_tokens,
    "sssf.usage.cache_write_tokens": session.cache_write_tokens,
  });
}

/** One phase's span. */
export function phaseAttributes(phase: PhaseRow): Attributes {
  return cleanAttributes({
    "sssf.adw_id": phase.adw_id,
    "sssf.phase.id": phase.id,
    "sssf.phase.number": phase.number,
    "sssf.phase.name": phase.name,
    "sssf.phase.kind": phase.kind,
    "sssf.phase.owner": phase.owner,
    "sssf.phase.status": phase.status,
    "sssf.phase.error": phase.error,
    "sssf.cost_usd": phase.cost_usd,
    "sssf.usage.input_tokens": phase.input_tokens,
    "sssf.usage.output_tokens": phase.output_tokens,
    "sssf.usage.cache_read_tokens": phase.cache_read_tokens,
    "sssf.usage.cache_write_tokens": phase.cache_write_tokens,
  });
}

/** The attributes every event-born span carries. */
function eventBase(event: EventRow): Record<string, AttributeValue | null | undefined> {
  return { "sssf.adw_id": event.adw_id, "sssf.phase.id": event.phase_id, "sssf.event.id": event.id };
}

/**
 * The provider of a send: the `provider/` of a `provider/model` id (pi, opencode), else the agent's
 * runtime id (sssf knows no more: the CLIs pick their provider themselves).
 */
export function providerOf(model: string | undefined, codingAgent: string | undefined): string | undefined {
  const slash = model?.indexOf("/") ?? -1;
  if (model !== undefined && slash > 0) return model.slice(0, slash);
  return codingAgent;
}

/**
 * One agent send (`agent_start`, closed with its usage): `invoke_agent`, since sssf hands the prompt to
 * an agent CLI that runs its own model turns and tools. The response model is the model asked for: the
 * CLIs report no other.
 */
export function sendAttributes(event: EventRow, codingAgent: string | undefined): Attributes {
  const payload = payloadOf(event);
  const usage = (payload.usage ?? {}) as Record<string, unknown>;
  const model = stringOf(payload.model);
  return cleanAttributes({
    ...eventBase(event),
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
    [ATTR_GEN_AI_PROVIDER_NAME]: providerOf(model, codingAgent),
    [ATTR_GEN_AI_AGENT_NAME]: event.agent,
    [ATTR_GEN_AI_CONVERSATION_ID]: stringOf(payload.session_id),
    [ATTR_GEN_AI_REQUEST_MODEL]: model,
    [ATTR_GEN_AI_RESPONSE_MODEL]: event.ended_at === null ? undefined : model,
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: numberOf(usage.input_tokens),
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: numberOf(usage.output_tokens),
    [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: numberOf(usage.cache_read_tokens),
    [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: numberOf(usage.cache_write_tokens),
    [ATTR_ERROR_TYPE]: stringOf(payload.error_kind),
    "sssf.cost_usd": numberOf(usage.cost),
    "sssf.cost_source": stringOf(payload.cost_source),
    "sssf.coding_agent": codingAgent,
    "sssf.send.attempt": numberOf(payload.attempt),
    "sssf.send.reason": stringOf(payload.reason),
    "sssf.context_tokens": numberOf(payload.context_tokens),
  });
}

/** The tool a `tool_call` event ran (`payload.tool`; its `name` is a display line like `bash: ls`). */
export function toolOf(event: EventRow): string {
  return stringOf(payloadOf(event).tool) ?? event.name;
}

/** One tool call of a send. */
export function toolAttributes(event: EventRow): Attributes {
  const payload = payloadOf(event);
  return cleanAttributes({
    ...eventBase(event),
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    [ATTR_GEN_AI_TOOL_NAME]: toolOf(event),
    "sssf.tool.title": event.name,
    [ATTR_GEN_AI_AGENT_NAME]: event.agent,
    [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: payload.args === undefined ? undefined : JSON.stringify(payload.args),
    "sssf.tool.ok": event.ok === null ? undefined : event.ok === 1,
  });
}

/** One gate's verdict on an envelope (`gate_pass`/`gate_fail`). */
export function gateAttributes(event: EventRow): Attributes {
  const payload = payloadOf(event);
  const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);
  return cleanAttributes({
    ...eventBase(event),
    "sssf.gate.name": stringOf(payload.gate) ?? event.name,
    "sssf.gate.ok": event.type === "gate_pass",
    "sssf.gate.checks": count(payload.checks),
    "sssf.gate.violations": count(payload.violations),
    [ATTR_GEN_AI_AGENT_NAME]: event.agent,
  });
}

/** A quality suite a code phase ran: the VerifyOutput of its `log` event, or its base-commit baseline. */
export interface SuiteRun {
  suite: string;
  passed: boolean;
  durationMs: number;
  exitCode: number | null;
  baseline: boolean;
}

/** The suite a `log` event reports, or null when it reports none. */
export function suiteOf(event: EventRow): SuiteRun | null {
  if (event.type !== "log") return null;
  const payload = payloadOf(event);
  const found = (payload.envelope ?? payload.baseline) as Record<string, unknown> | undefined;
  if (typeof found !== "object" || found === null) return null;
  const suite = stringOf(found.suite);
  if (suite === undefined || typeof found.passed !== "boolean") return null;
  return {
    suite,
    passed: found.passed,
    durationMs: numberOf(found.duration_ms) ?? 0,
    exitCode: numberOf(found.exit_code) ?? null,
    baseline: payload.envelope === undefined,
  };
}

/** One suite's span. */
export function suiteAttributes(event: EventRow, run: SuiteRun): Attributes {
  return cleanAttributes({
    ...eventBase(event),
    "sssf.suite.name": run.suite,
    "sssf.suite.passed": run.passed,
    "sssf.suite.exit_code": run.exitCode,
    "sssf.suite.baseline": run.baseline,
  });
}
