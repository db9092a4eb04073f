/**
 * The parser of `codex exec --json` output: thread id, final message, tool calls, this send's usage
 * (codex's counters are cumulative per thread), and failures the stream reports whatever the exit
 * code (`turn.failed`, fatal `error` events, a resumed thread that is not the one asked for).
 */

import { type AgentSendObserver, emptyUsage, type SendErrorKind, type Usage } from "../runtime.js";
import type { CliStreamParser, CliStreamResult } from "../send-loop/cli-runtime.js";
import { ToolCallTracker } from "../send-loop/tool-call-tracker.js";
import { type CodexItem, itemOutcome, toolOfItem } from "./items.js";
import { codexRateLimit } from "./rate-limits.js";
import type { CodexCumulativeUsage } from "./session.js";

/** What the parser needs to know about the send it reads. */
export interface CodexParserOptions {
  observer: AgentSendObserver;
  cwd: string;
  /** The model name as codex will send it (for recognizing an endpoint's model rejection), or "". */
  model: string;
  /** Appended to a model rejection: where valid model names come from. */
  modelHint: string;
  /** The thread being resumed, or null for a new one. */
  expectedThreadId: string | null;
  /** The thread's cumulative usage after the previous send, when sssf saw one. */
  baseline: CodexCumulativeUsage | undefined;
  /** Called at `thread.started` (record the thread at once: a killed send can still be resumed). */
  onThread(threadId: string): void;
  /** Called for every line with codex's "Reconnecting..." retry message, or null for any other line. */
  onLine?(retry: string | null): void;
}

/** A parser that also hands back the raw cumulative counters, to store as the next baseline. */
export interface CodexStreamParser extends CliStreamParser {
  cumulative(): CodexCumulativeUsage | null;
  /** How many tool items (commands, file changes, MCP calls, web searches) the stream showed. */
  toolItems(): number;
}

/** The exec stream's item types that stand for tool calls the rollout also records as thread items. */
const TOOL_ITEM_TYPES = new Set(["command_execution", "file_change", "mcp_tool_call", "web_search"]);

const COUNTERS = [
  "input_tokens",
  "cached_input_tokens",
  "cache_write_input_tokens",
  "output_tokens",
  "reasoning_output_tokens",
] as const;

function readCumulative(raw: unknown): CodexCumulativeUsage {
  const fields = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const out = {} as CodexCumulativeUsage;
  for (const key of COUNTERS) {
    const value = fields[key];
    out[key] = typeof value === "number" && Number.isFinite(value) ? value : 0;
  }
  return out;
}

/**
 * This send's usage: cumulative minus the baseline. A counter below its baseline means the baseline
 * is stale, so the cumulative counts are this send's. OpenAI's input count includes cached input.
 */
export function usageSince(now: CodexCumulativeUsage, base: CodexCumulativeUsage | undefined): Usage {
  const stale = base === undefined || COUNTERS.some((key) => now[key] < base[key]);
  const delta = (key: (typeof COUNTERS)[number]) => now[key] - (stale || !base ? 0 : base[key]);
  const cacheRead = delta("cached_input_tokens");
  const cacheWrite = delta("cache_write_input_tokens");
  return {
    ...emptyUsage(),
    inputTokens: Math.max(0, delta("input_tokens") - cacheRead - cacheWrite),
    outputTokens: delta("output_tokens"),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

const RECONNECTING = /^Reconnecting\.\.\./;

/** Whether an error message says the endpoint does not serve `model`. */
export function isModelRejection(message: string, model: string): boolean {
  if (/model_not_found/i.test(message)) return true;
  if (model === "" || !message.includes(model)) return false;
  return /does not exist|not found|not supported|unsupported|unknown|invalid|no such|not available/i.test(
    message,
  );
}

/**
 * A parser for one send. Tool calls and usage go to the observer as their events arrive; `finish`
 * flushes unfinished tool calls (as failed) and gives the result. `line` throws on non-JSON lines
 * (runCliSend skips them).
 */
export function createCodexParser(options: CodexParserOptions): CodexStreamParser {
  const { observer } = options;
  const tracker = new ToolCallTracker(observer);
  // Live text only: an observer that throws must not cost the line its parsing.
  const onText = (piece: string) => {
    try {
      observer.onText?.(piece);
    } catch {}
  };
  let threadId: string | null = null;
  let text: string | null = null;
  let cumulative: CodexCumulativeUsage | null = null;
  let usage = emptyUsage();
  let turnError: string | undefined;
  let lastError: string | undefined;
  let fatal: { error: string; kind?: SendErrorKind } | undefined;
  const log = (message: string) => observer.onLog?.(`codex: ${message}`);

  const toolItemIds = new Set<string>();
  const onItem = (phase: string, item: CodexItem) => {
    if (TOOL_ITEM_TYPES.has(item.type)) toolItemIds.add(String(item.id));
    if (item.type === "agent_message" && phase === "item.completed") {
      text = String(item.text ?? "");
      onText(`${text}\n`);
    } else if (item.type === "error" && phase === "item.completed") log(String(item.message ?? ""));
    const tool = toolOfItem(item, options.cwd);
    if (tool === null) return;
    if (phase === "item.started") tracker.start(item.id, tool.tool, tool.args);
    else if (phase === "item.completed") {
      const outcome = itemOutcome(item, options.cwd);
      tracker.end(item.id, outcome.result, outcome.ok, new Date(), tool);
    }
  };

  return {
    line(line) {
      const event = JSON.parse(line) as { type?: unknown; [field: string]: unknown };
      const reconnecting = event.type === "error" && RECONNECTING.test(String(event.message ?? ""));
      options.onLine?.(reconnecting ? String(event.message) : null);
      switch (event.type) {
        case "thread.started": {
          const started = String(event.thread_id ?? "");
          const expected = options.expectedThreadId;
          if (expected !== null && started !== expected) {
            // The session stays on its own thread: the stray one lacks its history.
            fatal = { error: `codex continued thread ${started} instead of the requested ${expected}` };
            threadId = expected;
            break;
          }
          threadId = started;
          options.onThread(started);
          break;
        }
        case "item.started":
        case "item.updated":
        case "item.completed":
          if (typeof event.item === "object" && event.item !== null)
            onItem(event.type, event.item as CodexItem);
          break;
        case "turn.completed":
          cumulative = readCumulative(event.usage);
          usage = usageSince(cumulative, options.baseline);
          observer.onUsage?.(usage);
          break;
        case "turn.failed":
          turnError = String((event.error as { message?: unknown } | undefined)?.message ?? "turn failed");
          break;
        case "error":
          log(String(event.message ?? ""));
          if (!reconnecting) lastError = String(event.message ?? "");
          break;
      }
    },
    finish(): CliStreamResult {
      tracker.flush();
      let error = fatal?.error ?? turnError ?? (cumulative === null ? lastError : undefined);
      let errorKind: SendErrorKind | undefined = fatal?.kind;
      if (error !== undefined && fatal === undefined && isModelRejection(error, options.model)) {
        errorKind = "model_unknown";
        error = `the endpoint rejected model "${options.model}": ${error}. ${options.modelHint}`;
      }
      const rateLimit = errorKind === undefined ? codexRateLimit(error) : null;
      return {
        text,
        error,
        errorKind: rateLimit?.kind ?? errorKind,
        ...(rateLimit === null ? {} : { rateLimit }),
        nativeSessionId: threadId ?? undefined,
        usage,
        contextTokens: null,
      };
    },
    // A stray thread's counters are no baseline for the session's own thread.
    cumulative: () => (fatal === undefined ? cumulative : null),
    toolItems: () => toolItemIds.size,
  };
}
