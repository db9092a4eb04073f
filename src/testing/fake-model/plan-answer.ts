/**
 * Decides what a generation request gets: a scripted step turned into a reply, error or hang, or the
 * default reply (a final text after a tool result, else a JSON echo of what the fake saw).
 */
import { resolveWriteFile } from "./resolve-write-file.js";
import type { FakeApi, FakeHttpError, FakeStep } from "./types.js";
import type { FakeReply, FakeToolCall, ParsedRequest, ReplyUsage } from "./wire-api.js";

/** What the server does with a request. */
export type PlannedAnswer =
  | { kind: "reply"; reply: FakeReply }
  | { kind: "error"; status: number; message: string }
  | { kind: "http_error"; error: FakeHttpError }
  | { kind: "hang" };

/** The JSON text of the default reply to a request that does not end with a tool result. */
export interface EchoReply {
  fake: true;
  api: FakeApi;
  /** Every distinct `TURN-n` in the request body, in order of first appearance. */
  markers: string[];
  n_user: number;
  after_tool: boolean;
  last_user: string;
}

/** The final text sent after a tool result when no step matches. */
export const DEFAULT_FINAL_TEXT = "fake model: tool result received; done.";

/** A rough token count for a text: a quarter of its length, at least 1. Never throws. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The default reply text for a request. Never throws. */
export function defaultReplyText(request: ParsedRequest): string {
  if (request.endsWithToolResult) return DEFAULT_FINAL_TEXT;
  const echo: EchoReply = {
    fake: true,
    api: request.api,
    markers: [...new Set(request.bodyText.match(/TURN-\d+/g) ?? [])],
    n_user: request.userTexts,
    after_tool: request.endsWithToolResult,
    last_user: request.lastUserText,
  };
  return JSON.stringify(echo);
}

function rawToolCall(tool: NonNullable<FakeStep["tool"]>, request: ParsedRequest): FakeToolCall {
  const offered = request.tools.find((candidate) => candidate.name === tool.name);
  if (!offered?.freeform) return { name: tool.name, freeform: false, args: tool.args };
  const input = typeof tool.args.input === "string" ? tool.args.input : JSON.stringify(tool.args);
  return { name: tool.name, freeform: true, input };
}

/**
 * A structured answer the way the request's API carries it: a call of the schema's tool (claude's
 * StructuredOutput), or the JSON as the message text (a response format); without a native schema the
 * step's `reply` when it has one (the unconstrained answer), else the JSON as text. Never throws.
 */
function structuredAnswer(
  value: Record<string, unknown>,
  reply: string | undefined,
  request: ParsedRequest,
): { text: string; toolCall?: FakeToolCall } {
  const native = request.outputSchema;
  if (native?.via === "tool")
    return { text: "", toolCall: { name: native.name, freeform: false, args: value } };
  if (native === null && reply !== undefined) return { text: reply };
  return { text: JSON.stringify(value) };
}

function usageFor(
  step: FakeStep | undefined,
  request: ParsedRequest,
  text: string,
  call?: FakeToolCall,
): ReplyUsage {
  const callText = call ? (call.freeform ? call.input : JSON.stringify(call.args)) : "";
  return {
    input: step?.usage?.input ?? estimateTokens(request.bodyText),
    output: step?.usage?.output ?? estimateTokens(text + callText),
    cacheRead: step?.usage?.cacheRead ?? 0,
    cacheWrite: step?.usage?.cacheWrite ?? 0,
  };
}

/**
 * The answer to `request` given the selected step (undefined: none matched) and the script's
 * fallback. `seq` numbers the reply's ids. Never throws.
 */
export function planAnswer(
  step: FakeStep | undefined,
  request: ParsedRequest,
  fallback: "echo" | "error",
  seq: number,
): PlannedAnswer {
  if (!step && fallback === "error")
    return { kind: "error", status: 500, message: "fake model: no scripted step matches this request" };
  if (step?.error) return { kind: "error", status: step.error.status, message: step.error.message };
  if (step?.httpError) return { kind: "http_error", error: step.httpError };
  if (step?.hang) return { kind: "hang" };
  let toolCall: FakeToolCall | undefined;
  let text = step?.reply ?? "";
  if (step?.structured) {
    const answer = structuredAnswer(step.structured, step.reply, request);
    text = answer.text;
    toolCall = answer.toolCall;
  } else if (step?.tool) toolCall = rawToolCall(step.tool, request);
  else if (step?.writeFile) {
    toolCall = resolveWriteFile(request.tools, step.writeFile.path, step.writeFile.content);
    if (!toolCall) {
      const offered = request.tools.map((tool) => tool.name).join(", ") || "no tools";
      // Answer in text rather than an error so the client does not retry; the log shows the step.
      text = `${text ? `${text}\n` : ""}fake model: cannot write ${step.writeFile.path}: no write, shell or apply_patch tool among ${offered}`;
    }
  } else if (step?.reply === undefined) text = defaultReplyText(request);
  return {
    kind: "reply",
    reply: { text, ...(toolCall ? { toolCall } : {}), usage: usageFor(step, request, text, toolCall), seq },
  };
}
