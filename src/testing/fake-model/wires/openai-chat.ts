/**
 * OpenAI Chat Completions (`POST …/chat/completions`), as pi and opencode speak it: `role:"tool"`
 * messages carry tool results; a stream is `chat.completion.chunk`s, a usage chunk with `choices:[]`
 * when `stream_options.include_usage` is set, then `data: [DONE]`.
 */
import type { ServerResponse } from "node:http";
import { sendJson } from "../http-io.js";
import { closeSse, openSse, splitDeltas, writeSse } from "../sse.js";
import { rejectStrictSchema } from "../strict-schema-check.js";
import {
  asArray,
  asRecord,
  contentText,
  type FakeReply,
  type NativeOutputSchema,
  type ReplyUsage,
  type RequestFacts,
  type RequestRejection,
  toolArguments,
  type WireApi,
} from "../wire-api.js";

/** `response_format: {type: "json_schema", json_schema: {name, schema, strict}}`, or null. Never throws. */
function responseFormatSchema(body: Record<string, unknown>): NativeOutputSchema | null {
  const format = asRecord(body.response_format);
  if (format.type !== "json_schema") return null;
  const spec = asRecord(format.json_schema);
  const name = typeof spec.name === "string" ? spec.name : "";
  return { via: "format", name, schema: spec.schema, strict: spec.strict === true };
}

/** The `type` OpenAI puts in an error body for a status. Never throws. */
export function openAiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  return status < 500 ? "invalid_request_error" : "server_error";
}

/** An error as both OpenAI wire APIs (Chat Completions, Responses) write it. */
export function sendOpenAiError(
  res: ServerResponse,
  status: number,
  message: string,
  details?: RequestRejection,
): void {
  sendJson(res, status, {
    error: {
      message,
      type: openAiErrorType(status),
      param: details?.param ?? null,
      code: details?.code ?? null,
    },
  });
}

function chatUsage(usage: ReplyUsage) {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
  };
}

function parse(body: Record<string, unknown>): RequestFacts {
  const messages = asArray(body.messages).map(asRecord);
  const userTexts = messages
    .filter((message) => message.role === "user")
    .map((message) => contentText(message.content, ["text"]))
    .filter((text) => text !== "");
  const tools = asArray(body.tools)
    .map((tool) => asRecord(asRecord(tool).function))
    .filter((fn) => typeof fn.name === "string")
    .map((fn) => ({ name: fn.name as string, freeform: false, schema: fn.parameters }));
  return {
    api: "openai-chat",
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    lastUserText: userTexts.at(-1) ?? "",
    userTexts: userTexts.length,
    endsWithToolResult: messages.at(-1)?.role === "tool",
    tools,
    includeUsage: asRecord(body.stream_options).include_usage === true,
    outputSchema: responseFormatSchema(body),
  };
}

function reply(res: ServerResponse, request: RequestFacts, answer: FakeReply): void {
  const id = `chatcmpl-fake-${answer.seq}`;
  const created = Math.floor(Date.now() / 1000);
  const call = answer.toolCall;
  const toolCall = call && {
    id: `call_fake_${answer.seq}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(toolArguments(call)) },
  };
  const finishReason = call ? "tool_calls" : "stop";
  const usage = chatUsage(answer.usage);
  if (!request.stream) {
    const message = {
      role: "assistant",
      content: answer.text || null,
      ...(toolCall ? { tool_calls: [toolCall] } : {}),
    };
    sendJson(res, 200, {
      id,
      object: "chat.completion",
      created,
      model: request.model,
      choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
      usage,
    });
    return;
  }
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    writeSse(res, { id, object: "chat.completion.chunk", created, model: request.model, choices, ...extra });
  const delta = (value: Record<string, unknown>) => chunk([{ index: 0, delta: value, finish_reason: null }]);
  openSse(res);
  delta({ role: "assistant", content: "" });
  for (const piece of splitDeltas(answer.text)) delta({ content: piece });
  if (toolCall) {
    const { name, arguments: args } = toolCall.function;
    delta({
      tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name, arguments: "" } }],
    });
    for (const piece of splitDeltas(args))
      delta({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
  }
  // Without include_usage the usage rides on the finish chunk, as many compatible servers do.
  chunk([{ index: 0, delta: {}, finish_reason: finishReason }], request.includeUsage ? {} : { usage });
  if (request.includeUsage) chunk([], { usage });
  writeSse(res, "[DONE]");
  closeSse(res);
}

/** The Chat Completions wire API. */
export const openAiChat: WireApi = {
  id: "openai-chat",
  parse,
  reply,
  error: sendOpenAiError,
  reject: (request) => rejectStrictSchema(request, "response_format"),
};
