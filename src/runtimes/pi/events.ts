/**
 * Parser of `pi --print --mode json` output: the session header line, then one JSON event per line
 * (`message_end`, `tool_execution_start/end`, `auto_retry_*`, `compaction_*`, …). pi exits 0 even when
 * the model call failed, so success is read from the last assistant message's `stopReason`.
 */

import { type AgentSendObserver, addUsage, emptyUsage, type ToolCall, type Usage } from "../runtime.js";
import type { CliStreamParser, CliStreamResult } from "../send-loop/cli-runtime.js";
import { toolCallName } from "../send-loop/tool-call-name.js";
import { ToolCallTracker } from "../send-loop/tool-call-tracker.js";
import { piRateLimit } from "./rate-limits.js";

interface PiUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
  cost?: { total?: number };
}

interface PiAssistantMessage {
  role: "assistant";
  content?: Array<{ type?: string; text?: string }>;
  usage?: PiUsage;
  stopReason?: string;
  errorMessage?: string;
}

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

function usageOf(usage: PiUsage | undefined): Usage {
  return {
    inputTokens: num(usage?.input),
    outputTokens: num(usage?.output),
    cacheReadTokens: num(usage?.cacheRead),
    cacheWriteTokens: num(usage?.cacheWrite),
    costUsd: num(usage?.cost?.total),
  };
}

/** Text of a tool result (`{content: [{type: "text", text}]}`), else its JSON. */
function resultText(result: unknown): string {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return JSON.stringify(result ?? "");
  return content
    .map((part: { type?: string; text?: unknown }) =>
      part?.type === "text" && typeof part.text === "string" ? part.text : `[${part?.type ?? "?"}]`,
    )
    .join("\n");
}

/** `grep: runWorkflow in src`, `find: *.ts`, `ls: src`: the pattern says more than the generic rendering. */
export function piToolCallName(call: ToolCall): string {
  const args = (call.args ?? {}) as { pattern?: unknown; path?: unknown };
  if (call.tool === "ls") return toolCallName("ls", typeof args.path === "string" ? args.path : ".");
  if ((call.tool === "grep" || call.tool === "find") && typeof args.pattern === "string") {
    const where = typeof args.path === "string" ? ` in ${args.path}` : "";
    return toolCallName(call.tool, `${args.pattern}${where}`);
  }
  return call.name;
}

// message_update lines carry the streamed deltas: read only for live text (`onText`), else skipped.
const SKIPPED_PREFIX = '{"type":"message_update"';

/**
 * A parser for one send: reports each tool call (start/end paired by id, real times from line
 * arrival) and each assistant message's usage as it completes. Never throws from `finish`.
 */
export function createPiStreamParser(observer: AgentSendObserver): CliStreamParser {
  // A failing observer must not break parsing.
  const safely = (report: () => void) => {
    try {
      report();
    } catch {}
  };
  const tracker = new ToolCallTracker({
    onToolCall: (call) => safely(() => observer.onToolCall?.({ ...call, name: piToolCallName(call) })),
    onToolStart: (call) =>
      safely(() =>
        observer.onToolStart?.({
          ...call,
          name: piToolCallName({ ...call, result: "", ok: true, endedAt: call.startedAt }),
        }),
      ),
  });
  const text = (piece: string) => safely(() => observer.onText?.(piece));
  const log = (message: string, details?: Record<string, unknown>) =>
    safely(() => observer.onLog?.(message, details));
  const usage = emptyUsage();
  let nativeSessionId: string | undefined;
  let last: PiAssistantMessage | undefined;
  let contextTokens: number | null = null;

  const onAssistant = (message: PiAssistantMessage) => {
    const messageUsage = usageOf(message.usage);
    addUsage(usage, messageUsage);
    last = message;
    safely(() => observer.onUsage?.(messageUsage));
    if (message.stopReason !== "error" && message.stopReason !== "aborted") {
      const total = num(message.usage?.totalTokens);
      contextTokens =
        total > 0
          ? total
          : messageUsage.inputTokens +
            messageUsage.outputTokens +
            messageUsage.cacheReadTokens +
            messageUsage.cacheWriteTokens;
    }
    if (message.stopReason === "length") log("pi: the model stopped at its output token limit");
  };

  // Only read for live progress: a streamed text delta (lines already cut to the delta by compactPiLine).
  const onUpdate = (line: string) => {
    let update: { assistantMessageEvent?: { type?: unknown; delta?: unknown } };
    try {
      update = JSON.parse(line);
    } catch {
      return;
    }
    const delta = update.assistantMessageEvent;
    if (delta?.type === "text_delta" && typeof delta.delta === "string") text(delta.delta);
  };

  return {
    line(line) {
      if (line.startsWith(SKIPPED_PREFIX)) {
        if (observer.onText !== undefined) onUpdate(line);
        return;
      }
      const event = JSON.parse(line) as Record<string, unknown>;
      switch (event.type) {
        case "session":
          if (typeof event.id === "string") nativeSessionId = event.id;
          break;
        case "message_end": {
          const message = event.message as { role?: string } | undefined;
          if (message?.role === "assistant") {
            onAssistant(message as PiAssistantMessage);
            text("\n");
          }
          break;
        }
        case "tool_execution_start":
          tracker.start(String(event.toolCallId), String(event.toolName), event.args);
          break;
        case "tool_execution_end":
          tracker.end(
            String(event.toolCallId),
            resultText(event.result),
            event.isError !== true,
            new Date(),
            {
              tool: String(event.toolName),
              args: undefined,
            },
          );
          break;
        case "auto_retry_start":
          log(`pi retries the model call (attempt ${num(event.attempt)}/${num(event.maxAttempts)})`, {
            error: event.errorMessage,
            delay_ms: event.delayMs,
          });
          break;
        case "compaction_start":
          log(`pi compacts the session context (${String(event.reason ?? "threshold")})`);
          break;
        case "compaction_end":
          if (typeof event.errorMessage === "string") log(`pi: ${event.errorMessage}`);
          break;
      }
    },
    finish(): CliStreamResult {
      tracker.flush();
      const common = { usage, contextTokens, nativeSessionId };
      if (last === undefined) return { text: null, ...common };
      if (last.stopReason === "error" || last.stopReason === "aborted") {
        const why = last.errorMessage ?? `the model call ended with stopReason ${last.stopReason}`;
        const error = `pi reported a model error: ${why}`;
        const rateLimit = piRateLimit(last.stopReason, last.errorMessage);
        if (rateLimit !== null) return { text: null, error, errorKind: rateLimit.kind, rateLimit, ...common };
        return { text: null, error, ...common };
      }
      const text = (last.content ?? [])
        .filter((part) => part.type === "text" && typeof part.text === "string")
        .map((part) => part.text)
        .join("\n");
      return { text, ...common };
    },
  };
}
