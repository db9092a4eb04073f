/**
 * Shared pieces of the native structured-output tests (claude `--json-schema`, codex
 * `--output-schema`): the schema sssf passes, envelopes, an observer that keeps log details, and
 * readers of the trace.
 */
import { outputJsonSchema } from "../../src/envelope/report-section.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import type { AgentSendObserver } from "../../src/runtimes/runtime.js";
import type { LoggedRequest } from "../../src/testing/index.js";
import { recordingObserver } from "./cli-harness.js";

/** The schema the engine passes for a GenericOutput call. */
export const GENERIC_SCHEMA = outputJsonSchema(GenericOutput);

/** A GenericOutput envelope every gate of the prompt workflow accepts. */
export const VALID_ENVELOPE = {
  status: "success",
  summary: "answered through the native schema",
  artifacts: [],
  notes_for_next_agent: "",
};

/** One log line a runtime reported. */
export interface LoggedLine {
  message: string;
  details: Record<string, unknown>;
}

/** recordingObserver plus every log line with its details. */
export function nativeObserver(): ReturnType<typeof recordingObserver> & { logs: LoggedLine[] } {
  const base = recordingObserver();
  const logs: LoggedLine[] = [];
  const observer: AgentSendObserver = {
    ...base,
    onLog: (message, details) => logs.push({ message, details: details ?? {} }),
  };
  return Object.assign(observer, { toolCalls: base.toolCalls, usages: base.usages, pids: base.pids, logs });
}

/** The per-send summary lines of the native layer (details `native_schema` set). */
export function nativeSummaries(logs: readonly LoggedLine[]): LoggedLine[] {
  return logs.filter((line) => typeof line.details.native_schema === "boolean");
}

/** The `log` events of a run's trace, with their payloads. */
export function traceLogs(query: <T>(sql: string) => T[]): LoggedLine[] {
  return query<{ name: string; payload: string }>(
    "SELECT name, payload FROM events WHERE type = 'log' ORDER BY started_at, rowid",
  ).map((row) => ({ message: row.name, details: JSON.parse(row.payload) as Record<string, unknown> }));
}

/** `[valid, reason]` of each envelopes row, in attempt order. */
export function envelopeRows(query: <T>(sql: string) => T[]): [number, string][] {
  return query<{ valid: number; reason: string }>("SELECT valid, reason FROM envelopes ORDER BY attempt").map(
    (row) => [row.valid, row.reason],
  );
}

/** The `input_schema` of claude's StructuredOutput tool in a logged Anthropic request, if offered. */
export function structuredOutputTool(entry: LoggedRequest | undefined): Record<string, unknown> | undefined {
  const tools = (entry?.body as { tools?: { name?: string; input_schema?: Record<string, unknown> }[] })
    ?.tools;
  return tools?.find((tool) => tool.name === "StructuredOutput")?.input_schema;
}

/** The `text.format` of a logged Responses request, if any. */
export function responsesFormat(entry: LoggedRequest | undefined): Record<string, unknown> | undefined {
  return (entry?.body as { text?: { format?: Record<string, unknown> } })?.text?.format;
}
