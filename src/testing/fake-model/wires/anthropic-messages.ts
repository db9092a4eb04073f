/**
 * Anthropic Messages (`POST …/messages`, any query such as `?beta=true`), as claude and pi speak it:
 * `tool_result` blocks in user messages carry tool results, and a `role:"system"` message may sit
 * inside `messages`. A stream runs `message_start` … `message_stop`; tool input streams as
 * `input_json_delta`. A native output schema is claude's `StructuredOutput` tool (`--json-schema`) or
 * the API's own `output_format` / `output_config.format`.
 */
import type { ServerResponse } from "node:http";
import { sendJson } from "../http-io.js";
import { closeSse, openSse, splitDeltas, writeSse } from "../sse.js";
import {
  asArray,
  asRecord,
  contentText,
  type FakeReply,
  type NativeOutputSchema,
  type OfferedTool,
  type ReplyUsage,
  type RequestFacts,
  toolArguments,
  type WireApi,
} from "../wire-api.js";

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

const hasToolResult = (message: Record<string, unknown>) =>
  asArray(message.content).some((block) => asRecord(block).type === "tool_result");

/** The tool claude 2.1.332 adds for `--json-schema`: the model answers by calling it. */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

const SYSTEM_REMINDERS = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

/**
 * The text a user message adds after its last tool result. claude puts the next prompt into the
 * message that carries the previous turn's last tool result (a turn ended by a StructuredOutput call),
 * so such a message is user text too. `<system-reminder>` blocks alone do not count. Never throws.
 */
function textAfterToolResults(message: Record<string, unknown>): string {
  const blocks = asArray(message.content).map(asRecord);
  const last = blocks.map((block) => block.type).lastIndexOf("tool_result");
  const text = contentText(blocks.slice(last + 1), ["text"]);
  return text.replace(SYSTEM_REMINDERS, "").trim() === "" ? "" : text;
}

/** The text a user message carries: all of it, or for a tool-result message what follows the results. */
function userText(message: Record<string, unknown>): string {
  return hasToolResult(message) ? textAfterToolResults(message) : contentText(message.content, ["text"]);
}

/** claude's StructuredOutput tool, else the API's `output_format` / `output_config.format`. Never throws. */
function nativeSchema(body: Record<string, unknown>, tools: OfferedTool[]): NativeOutputSchema | null {
  const tool = tools.find((offered) => offered.name === STRUCTURED_OUTPUT_TOOL);
  if (tool) return { via: "tool", name: tool.name, schema: tool.schema, strict: false };
  const format = asRecord(body.output_format ?? asRecord(body.output_config).format);
  if (format.type !== "json_schema") return null;
  return { via: "format", name: "", schema: format.schema, strict: false };
}

function usageFields(usage: ReplyUsage, output: number) {
  return {
    input_tokens: usage.input,
    output_tokens: output,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
  };
}

function parse(body: Record<string, unknown>): RequestFacts {
  // claude may put a system message among the turns; it is neither user text nor the conversation's end.
  const messages = asArray(body.messages)
    .map(asRecord)
    .filter((message) => message.role !== "system");
  const userTexts = messages
    .filter((message) => message.role === "user")
    .map(userText)
    .filter((text) => text !== "");
  const last = messages.at(-1);
  const tools: OfferedTool[] = asArray(body.tools)
    .map(asRecord)
    .filter((tool) => typeof tool.name === "string")
    .map((tool) => ({ name: tool.name as string, freeform: false, schema: tool.input_schema }));
  return {
    api: "anthropic",
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    lastUserText: userTexts.at(-1) ?? "",
    userTexts: userTexts.length,
    endsWithToolResult:
      last !== undefined && last.role === "user" && hasToolResult(last) && textAfterToolResults(last) === "",
    tools,
    includeUsage: false,
    outputSchema: nativeSchema(body, tools),
  };
}

function contentBlocks(answer: FakeReply): Record<string, unknown>[] {
  const call = answer.toolCall;
  const blocks: Record<string, unknown>[] = [];
  if (answer.text || !call) blocks.push({ type: "text", text: answer.text });
  if (call)
    blocks.push({
      type: "tool_use",
      id: `toolu_fake_${answer.seq}`,
      name: call.name,
      input: toolArguments(call),
    });
  return blocks;
}

function reply(res: ServerResponse, request: RequestFacts, answer: FakeReply): void {
  const blocks = contentBlocks(answer);
  const stopReason = answer.toolCall ? "tool_use" : "end_turn";
  const message = {
    id: `msg_fake_${answer.seq}`,
    type: "message",
    role: "assistant",
    model: request.model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: usageFields(answer.usage, answer.usage.output),
  };
  if (!request.stream) {
    sendJson(res, 200, message);
    return;
  }
  const send = (type: string, fields: Record<string, unknown> = {}) =>
    writeSse(res, { type, ...fields }, type);
  openSse(res);
  send("message_start", {
    message: { ...message, content: [], stop_reason: null, usage: usageFields(answer.usage, 1) },
  });
  blocks.forEach((block, index) => {
    const isText = block.type === "text";
    send("content_block_start", {
      index,
      content_block: isText ? { type: "text", text: "" } : { ...block, input: {} },
    });
    if (index === 0) send("ping");
    const deltas = isText ? splitDeltas(String(block.text)) : splitDeltas(JSON.stringify(block.input));
    for (const piece of deltas)
      send("content_block_delta", {
        index,
        delta: isText
          ? { type: "text_delta", text: piece }
          : { type: "input_json_delta", partial_json: piece },
      });
    send("content_block_stop", { index });
  });
  send("message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: usageFields(answer.usage, answer.usage.output),
  });
  send("message_stop");
  closeSse(res);
}

/** The Anthropic Messages wire API, with `…/messages/count_tokens`. */
export const anthropicMessages: WireApi = {
  id: "anthropic",
  parse,
  reply,
  error(res, status, message) {
    sendJson(res, status, { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } });
  },
  countTokens(res, tokens) {
    sendJson(res, 200, { input_tokens: tokens });
  },
};
