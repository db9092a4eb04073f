/**
 * Parser of `opencode run --format json` stdout. Every line is `{type, timestamp, sessionID, part}`:
 * `step_start`, `text` (part.text, sent once complete), `tool_use` (sent once the call completed or
 * failed; part.state has input, output or error, and time.start/end), `step_finish` (per-step
 * part.tokens and part.cost), and `error` (`{error: {name, data: {message}}}`, e.g. an API 4xx).
 */

import { type AgentSendObserver, addUsage, emptyUsage, type ToolCall, type Usage } from "../runtime.js";
import type { CliStreamParser, CliStreamResult } from "../send-loop/cli-runtime.js";
import type { RateLimitFinding } from "../send-loop/rate-limit.js";
import { toolCallName } from "../send-loop/tool-call-name.js";
import { ToolCallTracker } from "../send-loop/tool-call-tracker.js";
import { opencodeRateLimit } from "./rate-limits.js";

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
const asNumber = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) ? value : 0;
const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The argument that says most about an opencode tool call (its args use `filePath`, `pattern`, `url`). */
export function opencodeToolCallName(tool: string, args: unknown): string {
  const fields = asObject(args);
  for (const key of ["command", "filePath", "path", "pattern", "url", "description"]) {
    const value = asString(fields[key]);
    if (value !== undefined && value !== "") return toolCallName(tool, value);
  }
  return toolCallName(tool, args);
}

/** opencode's per-step token counts as sssf usage: its `output` excludes reasoning, which is billed as output. */
export function opencodeStepUsage(part: Json): Usage {
  const tokens = asObject(part.tokens);
  const cache = asObject(tokens.cache);
  return {
    inputTokens: asNumber(tokens.input),
    outputTokens: asNumber(tokens.output) + asNumber(tokens.reasoning),
    cacheReadTokens: asNumber(cache.read),
    cacheWriteTokens: asNumber(cache.write),
    costUsd: asNumber(part.cost),
  };
}

function describeError(raw: unknown): string {
  const error = asObject(raw);
  const data = asObject(error.data);
  const name = asString(error.name) ?? "error";
  const message = asString(data.message) ?? JSON.stringify(raw);
  const status = typeof data.statusCode === "number" ? ` (HTTP ${data.statusCode})` : "";
  const ref = asString(data.ref) === undefined ? "" : ` [ref ${data.ref}]`;
  return `${name}: ${message}${status}${ref}`;
}

const timeOf = (value: unknown, fallback: Date): Date =>
  typeof value === "number" ? new Date(value) : fallback;

/**
 * A parser for one send. `resumed` is the opencode session id being continued (null for a new one):
 * an answer from any other session is reported as an error, never taken as a silent fresh start.
 */
export function createOpencodeStreamParser(
  observer: AgentSendObserver,
  resumed: string | null,
): CliStreamParser {
  const tracker = new ToolCallTracker({
    onToolCall(call: ToolCall) {
      try {
        observer.onToolCall?.({ ...call, name: opencodeToolCallName(call.tool, call.args) });
      } catch {
        // The observer's failure is not the send's.
      }
    },
  });
  const usage = emptyUsage();
  const errors: string[] = [];
  let rateLimit: RateLimitFinding | null = null;
  let sessionId: string | undefined;
  let stepTexts: string[] = [];
  let contextTokens: number | null = null;

  const onToolUse = (part: Json, arrived: Date) => {
    const state = asObject(part.state);
    const time = asObject(state.time);
    const id = asString(part.callID) ?? asString(part.id) ?? `call-${arrived.getTime()}`;
    const tool = asString(part.tool) ?? "tool";
    const ok = state.status === "completed";
    tracker.start(id, tool, state.input ?? {}, timeOf(time.start, arrived));
    tracker.end(
      id,
      ok ? (state.output ?? "") : (state.error ?? state.output ?? ""),
      ok,
      timeOf(time.end, arrived),
    );
  };

  const onStepFinish = (part: Json) => {
    const step = opencodeStepUsage(part);
    addUsage(usage, step);
    contextTokens =
      step.inputTokens +
      step.cacheReadTokens +
      step.cacheWriteTokens +
      asNumber(asObject(part.tokens).output);
    try {
      observer.onUsage?.(step);
    } catch {
      // The observer's failure is not the send's.
    }
  };

  return {
    line(line: string) {
      let event: Json;
      try {
        event = asObject(JSON.parse(line));
      } catch {
        return; // Not an event (the line stays in raw_output.jsonl).
      }
      const arrived = new Date();
      const eventSession = asString(event.sessionID);
      if (sessionId === undefined && eventSession !== undefined) sessionId = eventSession;
      const part = asObject(event.part);
      switch (event.type) {
        case "step_start":
          stepTexts = [];
          break;
        case "text":
          if (typeof part.text === "string") {
            stepTexts.push(part.text);
            try {
              observer.onText?.(`${part.text}\n`);
            } catch {
              // The observer's failure is not the send's.
            }
          }
          break;
        case "tool_use":
          onToolUse(part, arrived);
          break;
        case "step_finish":
          onStepFinish(part);
          break;
        case "error":
          errors.push(describeError(event.error));
          rateLimit ??= opencodeRateLimit(event.error);
          break;
      }
    },
    finish(): CliStreamResult {
      tracker.flush();
      if (resumed !== null && sessionId !== undefined && sessionId !== resumed)
        errors.push(`opencode answered in session ${sessionId}, not in the resumed session ${resumed}`);
      const text = stepTexts.length === 0 ? null : stepTexts.join("");
      return {
        text,
        ...(errors.length === 0 ? {} : { error: errors.join("; ") }),
        ...(rateLimit === null ? {} : { rateLimit, errorKind: rateLimit.kind }),
        nativeSessionId: sessionId,
        usage,
        contextTokens,
      };
    },
  };
}
