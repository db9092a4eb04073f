/**
 * Parser of `claude -p --output-format stream-json --verbose`: one JSON object per line (`system`,
 * `assistant`, `user`, `result`). Tool calls pair assistant `tool_use` blocks with user `tool_result`
 * blocks; usage and cost come from the final `result` line, whose `is_error` decides success whatever
 * its `subtype` says.
 */

import { type AgentSendObserver, addUsage, emptyUsage, type Usage } from "../runtime.js";
import type { CliStreamParser, CliStreamResult } from "../send-loop/cli-runtime.js";
import { ToolCallTracker } from "../send-loop/tool-call-tracker.js";
import { sssfToolName } from "./args.js";
import { claudeRateLimit } from "./rate-limits.js";
import {
  type ClaudeStructuredOutcome,
  ClaudeStructuredWatch,
  lastStructuredText,
  noStructuredOutcome,
} from "./structured-output.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;
const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function timeOf(line: Json): Date {
  const stamp = str(line.timestamp);
  const time = stamp === undefined ? null : new Date(stamp);
  return time === null || Number.isNaN(time.getTime()) ? new Date() : time;
}

/** Anthropic usage (`input_tokens`, `cache_read_input_tokens`…) as sssf usage, without cost. */
export function claudeUsage(usage: unknown): Usage {
  const result = emptyUsage();
  if (!isObject(usage)) return result;
  result.inputTokens = num(usage.input_tokens);
  result.outputTokens = num(usage.output_tokens);
  result.cacheReadTokens = num(usage.cache_read_input_tokens);
  result.cacheWriteTokens = num(usage.cache_creation_input_tokens);
  return result;
}

/**
 * This invocation's cost. From 2.1.332 on, `total_cost_usd` and `modelUsage` add up the whole resumed
 * session, and `model_usage_since_last_result` holds this invocation; older versions only have the
 * per-invocation `total_cost_usd`.
 */
export function claudeSendCost(result: Json): number {
  const since = result.model_usage_since_last_result;
  if (!isObject(since)) return num(result.total_cost_usd);
  return Object.values(since).reduce<number>(
    (sum, model) => sum + (isObject(model) ? num(model.costUSD) : 0),
    0,
  );
}

/** Text of a tool result: a string, or the text blocks of a content array. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? "");
  return content
    .map((block) => (isObject(block) && typeof block.text === "string" ? block.text : JSON.stringify(block)))
    .join("\n");
}

/** What the parser needs besides the observer. */
export interface ClaudeParserOptions {
  observer: AgentSendObserver;
  /** The requested model ("" = claude's default), for the unknown-model message. */
  model: string;
  /** `--json-schema` was passed: StructuredOutput calls are the reply, not tool calls. */
  structured?: boolean;
}

/** A claude parser that also says what the native structured-output layer did. */
export interface ClaudeStreamParser extends CliStreamParser {
  structured(): ClaudeStructuredOutcome;
}

/**
 * A parser for one send's stdout. Never throws from `finish`. With `structured`, the reply text is
 * the JSON of the result's `structured_output` when claude has one.
 */
export function createClaudeStreamParser(options: ClaudeParserOptions): ClaudeStreamParser {
  const { observer } = options;
  const tracker = new ToolCallTracker(observer);
  // Live text only: an observer that throws must not cost the line its parsing.
  const onText = (piece: string) => {
    try {
      observer.onText?.(piece);
    } catch {}
  };
  const toolNames = new Map<string, { tool: string; args: unknown }>();
  const deniedLogged = new Set<string>();
  const perMessage = new Map<string, Usage>();
  let sessionId: string | undefined;
  let model = options.model;
  let lastText: string | null = null;
  /** The model's text answer to sssf's prompt, when claude then reminded it to call StructuredOutput. */
  let answeredBeforeReminder: string | null = null;
  let contextTokens: number | null = null;
  let modelNotFound = false;
  let errorTag: string | undefined;
  let lastRetryDelayMs: number | undefined;
  let result: Json | null = null;
  let resultUsage: Usage | null = null;

  const log = (message: string, details?: Record<string, unknown>) => observer.onLog?.(message, details);
  const watch = options.structured === true ? new ClaudeStructuredWatch(log) : null;

  function onSystem(line: Json): void {
    if (line.subtype === "init") {
      sessionId = str(line.session_id) ?? sessionId;
      if (model === "") model = str(line.model) ?? "";
    } else if (line.subtype === "api_retry") {
      if (typeof line.retry_delay_ms === "number") lastRetryDelayMs = line.retry_delay_ms;
      log(`claude retries the model request (attempt ${num(line.attempt)} of ${num(line.max_retries)})`, {
        error_status: line.error_status ?? null,
        error: line.error ?? null,
        retry_delay_ms: line.retry_delay_ms ?? null,
      });
    } else if (line.subtype === "permission_denied") {
      const id = str(line.tool_use_id) ?? "";
      deniedLogged.add(id);
      log(`claude denied ${str(line.tool_name) ?? "a tool"}: ${str(line.message) ?? "permission denied"}`, {
        tool_name: line.tool_name ?? null,
        tool_use_id: id,
      });
    }
  }

  function onAssistant(line: Json): void {
    if (line.error === "model_not_found") modelNotFound = true;
    if (typeof line.error === "string") errorTag = line.error;
    const message = line.message;
    if (!isObject(message)) return;
    const at = timeOf(line);
    const content = Array.isArray(message.content) ? message.content : [];
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === "text" && typeof block.text === "string") {
        lastText = block.text;
        onText(`${block.text}\n`);
      }
      if (block.type === "tool_use" && typeof block.id === "string") {
        if (watch?.toolUse(block.id, str(block.name) ?? "", block.input)) continue;
        const call = { tool: sssfToolName(str(block.name) ?? "tool"), args: block.input ?? {} };
        toolNames.set(block.id, call);
        tracker.start(block.id, call.tool, call.args, at);
      }
    }
    if (message.model === "<synthetic>" || !isObject(message.usage)) return;
    const usage = claudeUsage(message.usage);
    perMessage.set(str(message.id) ?? `line-${perMessage.size}`, usage);
    contextTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  }

  function onUser(line: Json): void {
    const message = line.message;
    if (!isObject(message) || !Array.isArray(message.content)) return;
    const at = timeOf(line);
    for (const block of message.content) {
      const reminder =
        line.isSynthetic === true && isObject(block) && typeof block.text === "string"
          ? watch?.syntheticText(block.text)
          : false;
      if (reminder) answeredBeforeReminder = lastText;
      if (!isObject(block) || block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
      if (watch?.toolResult(block.tool_use_id, block.content, block.is_error === true)) continue;
      const fallback = toolNames.get(block.tool_use_id) ?? { tool: "tool", args: {} };
      tracker.end(block.tool_use_id, resultText(block.content), block.is_error !== true, at, fallback);
    }
  }

  function onResult(line: Json): void {
    result = line;
    watch?.result(line);
    resultUsage = claudeUsage(line.usage);
    resultUsage.costUsd = claudeSendCost(line);
    observer.onUsage?.({ ...resultUsage });
    const denials = Array.isArray(line.permission_denials) ? line.permission_denials : [];
    for (const denial of denials) {
      if (!isObject(denial) || deniedLogged.has(str(denial.tool_use_id) ?? "")) continue;
      log(`claude denied ${str(denial.tool_name) ?? "a tool"}`, { ...denial });
    }
  }

  return {
    line(text) {
      const parsed: unknown = JSON.parse(text);
      if (!isObject(parsed)) return;
      if (parsed.type === "system") onSystem(parsed);
      else if (parsed.type === "assistant") onAssistant(parsed);
      else if (parsed.type === "user") onUser(parsed);
      else if (parsed.type === "result") onResult(parsed);
    },
    finish(): CliStreamResult {
      tracker.flush();
      const final = result as Json | null;
      const common = { nativeSessionId: sessionId, contextTokens };
      if (final === null || resultUsage === null) {
        // Killed before its result line: the per-message snapshots are the best count there is.
        const usage = [...perMessage.values()].reduce((sum, one) => addUsage(sum, one), emptyUsage());
        if (perMessage.size > 0) observer.onUsage?.({ ...usage });
        return { ...common, text: null, usage };
      }
      const failed = final.is_error === true || (final.subtype !== undefined && final.subtype !== "success");
      const native = watch?.summary() ?? noStructuredOutcome();
      if (!failed && native.structured !== null)
        return { ...common, text: JSON.stringify(native.structured), usage: resultUsage };
      // claude gave up on the schema: its last attempt goes to the door, which corrects by field path.
      if (native.gaveUp)
        return { ...common, text: lastStructuredText(native) ?? lastText ?? "", usage: resultUsage };
      if (!failed) {
        const text = str(final.result) ?? lastText ?? "";
        // The answer to sssf's prompt came before claude's reminder: the door reads both, the last valid envelope wins.
        const before = answeredBeforeReminder;
        const joined = before === null || before === text ? text : `${before}\n\n${text}`;
        return { ...common, text: joined, usage: resultUsage };
      }
      const errors = Array.isArray(final.errors) ? final.errors.filter((one) => typeof one === "string") : [];
      const said = str(final.result) || errors.join("; ") || `claude ended with ${String(final.subtype)}`;
      const status = final.api_error_status == null ? "" : ` (API status ${String(final.api_error_status)})`;
      if (modelNotFound) {
        const error = `the endpoint does not serve model "${model}"${status}: ${said} claude passes any model name through; the valid names are the models your endpoint (ANTHROPIC_BASE_URL, default api.anthropic.com) serves, such as the aliases sonnet, opus, haiku or a full id like claude-sonnet-4-6`;
        return { ...common, text: null, usage: resultUsage, error, errorKind: "model_unknown" };
      }
      const error = `claude reported an error${status}: ${said}`;
      const rateLimit = claudeRateLimit({
        apiErrorStatus: final.api_error_status,
        errorTag,
        lastRetryDelayMs,
        text: said,
      });
      if (rateLimit !== null)
        return { ...common, text: null, usage: resultUsage, error, errorKind: rateLimit.kind, rateLimit };
      return { ...common, text: null, usage: resultUsage, error };
    },
    structured: () => watch?.summary() ?? noStructuredOutcome(),
  };
}
