/**
 * Wire types of `sssf-exec/1`, the stdin/stdout protocol of `coding_agent: exec`, and the lenient
 * parser of its stdout lines. Single source of truth: `docs/exec-protocol.md` describes these types,
 * the exec runtime and the scripted test agent import them. Field names are snake_case (wire).
 */

import type { ThinkingLevel } from "../runtime.js";

/** The protocol id sent in every request; a program should refuse any other. */
export const EXEC_PROTOCOL = "sssf-exec/1";

/** The one JSON object sssf writes on the command's stdin before closing it. */
export interface ExecRequest {
  protocol: typeof EXEC_PROTOCOL;
  adw_id: string;
  agent: string;
  session_id: string;
  /** True when this `session_id` was used before: continue it instead of creating it. */
  resume: boolean;
  /** Folder where the agent keeps its own session state. */
  session_dir: string;
  model: string;
  thinking: ThinkingLevel;
  /** Tool allowlist; `[]` means no tools at all. */
  tools: string[];
  system_prompt: string;
  prompt: string;
  cwd: string;
}

/** One real tool call the agent made. */
export interface ExecToolCallLine {
  type: "tool_call";
  tool: string;
  args: unknown;
  result: string;
  ok: boolean;
  duration_ms: number;
  /** Display string; defaults to `<tool>: <short rendering of args>`. */
  name?: string;
  /** ISO-8601; defaults to `ended_at - duration_ms`. */
  started_at?: string;
  /** ISO-8601; defaults to the time the line arrived. */
  ended_at?: string;
}

/** Token and cost counts; several usage lines are summed. */
export interface ExecUsageLine {
  type: "usage";
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost: number;
  /** Tokens in the context window now; the last value seen wins. */
  context_tokens?: number;
}

/** A note for the trace. */
export interface ExecLogLine {
  type: "log";
  message: string;
}

/** Error kinds a program may give with `error`: its provider refused for a rate limit or a spent quota. */
export const EXEC_ERROR_KINDS = ["rate_limited", "usage_limit"] as const;
export type ExecErrorKind = (typeof EXEC_ERROR_KINDS)[number];

/**
 * The final assistant message; `error` means the agent itself reports a failure. With `error`,
 * `error_kind` says the failure is a rate limit (`rate_limited`: wait and retry) or a spent quota
 * (`usage_limit`), with the reset hint when known: `retry_after_ms` (relative) or `resets_at`
 * (ISO-8601 or epoch seconds). sssf then waits and retries, or falls back (docs/rate-limits.md).
 */
export interface ExecResultLine {
  type: "result";
  text: string;
  error?: string;
  error_kind?: ExecErrorKind;
  retry_after_ms?: number;
  resets_at?: string;
}

/**
 * Optional, for live progress: a tool call that has started (its `tool_call` line follows when it
 * ends). sssf shows it as the call in flight and records a `tool_start` event.
 */
export interface ExecToolStartLine {
  type: "tool_start";
  tool: string;
  args: unknown;
  /** Display string; defaults to `<tool>: <short rendering of args>`. */
  name?: string;
}

/**
 * Optional, for live progress: a piece of the agent's text as it streams. Pieces are concatenated; a
 * newline ends a line. Only the live display and `agent_text` events use it: the reply is `result`.
 */
export interface ExecTextLine {
  type: "text";
  text: string;
}

/** Every stdout line sssf understands; anything else is only kept in raw_output.jsonl. */
export type ExecStdoutLine =
  | ExecToolCallLine
  | ExecToolStartLine
  | ExecTextLine
  | ExecUsageLine
  | ExecLogLine
  | ExecResultLine;

const number = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const optionalString = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;
const text = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);

/**
 * A line JSON.parse rejected, retried with the raw control characters inside its strings escaped (a
 * program that printed a NUL byte unescaped): the text then reaches the envelope parser, which names
 * the character to the agent, instead of the result line being lost. Undefined when still not JSON.
 */
function parseWithRawControls(line: string): unknown {
  let escaped = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString && c === 0x5c) i++;
    else if (c === 0x22) inString = !inString;
    else if (inString && c < 0x20) {
      escaped += `${line.slice(from, i)}\\u${c.toString(16).padStart(4, "0")}`;
      from = i + 1;
    }
  }
  if (from === 0) return undefined;
  try {
    return JSON.parse(escaped + line.slice(from));
  } catch {
    return undefined;
  }
}

/** `resets_at` as ISO-8601: an ISO string, or epoch seconds (a number or digits); undefined otherwise. */
function resetsAtIso(value: unknown): string | undefined {
  const epoch =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^\d+$/.test(value)
        ? Number(value)
        : null;
  const date = epoch !== null ? new Date(epoch * 1000) : typeof value === "string" ? new Date(value) : null;
  return date === null || Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * Parses one stdout line. Returns null for anything that is not a JSON object with a known `type`
 * (such lines are kept in raw_output.jsonl and otherwise ignored); raw control characters inside its
 * strings, such as a NUL byte, are tolerated and kept in the values. Missing or mistyped fields get
 * neutral defaults rather than rejecting the line. Never throws.
 */
export function parseExecLine(line: string): ExecStdoutLine | null {
  if (!line.trimStart().startsWith("{")) return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    value = parseWithRawControls(line);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const fields = value as Record<string, unknown>;
  switch (fields.type) {
    case "tool_call": {
      const call: ExecToolCallLine = {
        type: "tool_call",
        tool: optionalString(fields.tool) ?? "unknown",
        args: fields.args ?? {},
        result: text(fields.result),
        ok: fields.ok !== false,
        duration_ms: Math.max(0, number(fields.duration_ms)),
      };
      const name = optionalString(fields.name);
      if (name !== undefined) call.name = name;
      const startedAt = optionalString(fields.started_at);
      if (startedAt !== undefined) call.started_at = startedAt;
      const endedAt = optionalString(fields.ended_at);
      if (endedAt !== undefined) call.ended_at = endedAt;
      return call;
    }
    case "usage": {
      const usage: ExecUsageLine = {
        type: "usage",
        input_tokens: number(fields.input_tokens),
        output_tokens: number(fields.output_tokens),
        cache_read_tokens: number(fields.cache_read_tokens),
        cache_write_tokens: number(fields.cache_write_tokens),
        cost: number(fields.cost),
      };
      if (typeof fields.context_tokens === "number") usage.context_tokens = fields.context_tokens;
      return usage;
    }
    case "tool_start": {
      const start: ExecToolStartLine = {
        type: "tool_start",
        tool: optionalString(fields.tool) ?? "unknown",
        args: fields.args ?? {},
      };
      const name = optionalString(fields.name);
      if (name !== undefined) start.name = name;
      return start;
    }
    case "text":
      return { type: "text", text: text(fields.text) };
    case "log":
      return { type: "log", message: text(fields.message) };
    case "result": {
      const result: ExecResultLine = { type: "result", text: text(fields.text) };
      const error = optionalString(fields.error);
      if (error !== undefined && error !== "") {
        result.error = error;
        const kind = fields.error_kind;
        if (typeof kind === "string" && (EXEC_ERROR_KINDS as readonly string[]).includes(kind)) {
          result.error_kind = kind as ExecErrorKind;
          const after = fields.retry_after_ms;
          if (typeof after === "number" && Number.isFinite(after) && after >= 0)
            result.retry_after_ms = after;
          const resets = resetsAtIso(fields.resets_at);
          if (resets !== undefined) result.resets_at = resets;
        }
      }
      return result;
    }
    default:
      return null;
  }
}
