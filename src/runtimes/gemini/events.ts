/**
 * Parser of `gemini -o stream-json` (gemini-cli 0.61.0): `init {session_id, model}`, `message {role,
 * content, delta}`, `tool_use {tool_name, tool_id, parameters}`, `tool_result {tool_id, status, output,
 * error}`, `error {severity, message}` and a final `result {status, error?, stats}`. Success needs a
 * `result` with status `success`; the exit code alone proves nothing (an HTTP 400 exits 144, i.e. 400
 * modulo 256, and an invalid stream ends with status `error` but no error text).
 */

import { type AgentSendObserver, emptyUsage, type SendErrorKind, type Usage } from "../runtime.js";
import type { CliStreamParser, CliStreamResult } from "../send-loop/cli-runtime.js";
import { ToolCallTracker } from "../send-loop/tool-call-tracker.js";
import { sssfToolName } from "./args.js";
import { geminiRateLimit } from "./rate-limits.js";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function eventTime(event: Record<string, unknown>): Date {
  const time = typeof event.timestamp === "string" ? new Date(event.timestamp) : new Date();
  return Number.isNaN(time.getTime()) ? new Date() : time;
}

/**
 * A send's usage from `result.stats`, which covers this invocation only (not the resumed history):
 * `input` is the uncached prompt, `cached` the cache hits, `output_tokens` the visible reply; the
 * remainder of `total_tokens` is reasoning ("thoughts"), billed as output, so it is added there.
 * Gemini has no cache writes and reports no cost.
 */
export function geminiUsage(stats: unknown): Usage {
  if (!isRecord(stats)) return emptyUsage();
  const prompt = num(stats.input_tokens);
  const cached = num(stats.cached);
  const output = num(stats.output_tokens);
  const thoughts = Math.max(0, num(stats.total_tokens) - prompt - output);
  return {
    inputTokens: typeof stats.input === "number" ? stats.input : Math.max(0, prompt - cached),
    outputTokens: output + thoughts,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    costUsd: 0,
  };
}

/** The error kind for a gemini error text: an API "model not found" is `model_unknown`. */
function errorKindOf(message: string): SendErrorKind {
  return /models\/\S+ is not found/i.test(message) ? "model_unknown" : "agent_error";
}

/**
 * A stateful stream parser for one send: concatenates assistant deltas since the last tool activity
 * into the final text, reports each tool call once through `ToolCallTracker` (sssf tool names, the
 * stream's own timestamps), and usage once at `result`. `options.sessionId` is the session the call
 * was started with (reported even when the CLI dies before `init`); `options.contextTokens` is asked
 * for once the stream ended with a result.
 */
export function createGeminiParser(
  observer: AgentSendObserver,
  options: { sessionId?: string; contextTokens?: () => number | null } = {},
): CliStreamParser {
  const tracker = new ToolCallTracker(observer);
  // Live text only: an observer that throws must not cost the line its parsing.
  const onText = (piece: string) => {
    try {
      observer.onText?.(piece);
    } catch {}
  };
  let usage: Usage = emptyUsage();
  let nativeSessionId = options.sessionId;
  let segment = "";
  let status: string | undefined;
  let resultError: string | undefined;
  let lastError: string | undefined;
  const open = new Map<string, { tool: string; args: unknown }>();

  const handlers: Record<string, (event: Record<string, unknown>) => void> = {
    init(event) {
      nativeSessionId = str(event.session_id) ?? nativeSessionId;
    },
    message(event) {
      if (event.role !== "assistant") return;
      const content = str(event.content) ?? "";
      segment = event.delta === true ? segment + content : content;
      onText(event.delta === true ? content : `${content}\n`);
    },
    tool_use(event) {
      const id = str(event.tool_id) ?? `tool-${open.size}`;
      const call = { tool: sssfToolName(str(event.tool_name) ?? "unknown"), args: event.parameters ?? {} };
      open.set(id, call);
      if (segment !== "") onText("\n");
      tracker.start(id, call.tool, call.args, eventTime(event));
      segment = "";
    },
    tool_result(event) {
      const id = str(event.tool_id) ?? "";
      const ok = event.status === "success";
      const error = isRecord(event.error) ? str(event.error.message) : undefined;
      const output = str(event.output) ?? "";
      tracker.end(id, ok ? output : (error ?? output), ok, eventTime(event), open.get(id));
      open.delete(id);
      segment = "";
    },
    error(event) {
      const message = str(event.message) ?? "unknown error";
      if (event.severity === "error") lastError = message;
      observer.onLog?.(`gemini ${str(event.severity) ?? "error"}: ${message}`);
    },
    result(event) {
      status = str(event.status);
      usage = geminiUsage(event.stats);
      observer.onUsage?.(usage);
      if (isRecord(event.error)) resultError = str(event.error.message) ?? str(event.error.type);
    },
  };

  return {
    line(line) {
      const event: unknown = JSON.parse(line);
      if (!isRecord(event) || typeof event.type !== "string") return;
      handlers[event.type]?.(event);
    },
    finish(): CliStreamResult {
      tracker.flush();
      const result: CliStreamResult = {
        text: status === "success" ? segment : null,
        usage,
        contextTokens: status === undefined ? null : (options.contextTokens?.() ?? null),
        nativeSessionId,
      };
      if (status !== undefined && status !== "success") {
        const message = resultError ?? lastError ?? `gemini ended with status "${status}"`;
        result.error = message;
        result.errorKind = errorKindOf(message);
        const rateLimit = result.errorKind === "agent_error" ? geminiRateLimit(message) : null;
        if (rateLimit !== null) {
          result.errorKind = rateLimit.kind;
          result.rateLimit = rateLimit;
        }
      }
      return result;
    },
  };
}
