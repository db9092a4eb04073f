/**
 * OpenAI Responses (`POST …/responses`), as codex and pi speak it: `input` items in, `output` items
 * out (`message`, `function_call`, or `custom_tool_call` for freeform tools such as codex's
 * apply_patch); tool results come back as `function_call_output` / `custom_tool_call_output` items.
 * A `text.format` of type `json_schema` is the request's native output schema; with `strict: true` it
 * must fit OpenAI's strict subset, or the request gets the API's 400 `invalid_json_schema`.
 */
import type { ServerResponse } from "node:http";
import { sendJson } from "../http-io.js";
import { rejectStrictSchema } from "../strict-schema-check.js";
import {
  asArray,
  asRecord,
  contentText,
  type FakeReply,
  type NativeOutputSchema,
  type RequestFacts,
  type WireApi,
} from "../wire-api.js";
import { sendOpenAiError } from "./openai-chat.js";
import { responseObject } from "./openai-responses-items.js";
import { streamResponse } from "./openai-responses-stream.js";

/** `text.format` of type `json_schema` (codex's `--output-schema`), or null. Never throws. */
function formatSchema(body: Record<string, unknown>): NativeOutputSchema | null {
  const format = asRecord(asRecord(body.text).format);
  if (format.type !== "json_schema") return null;
  const name = typeof format.name === "string" ? format.name : "";
  return { via: "format", name, schema: format.schema, strict: format.strict === true };
}

function parse(body: Record<string, unknown>): RequestFacts {
  const items =
    typeof body.input === "string"
      ? [{ type: "message", role: "user", content: body.input }]
      : asArray(body.input).map(asRecord);
  const userTexts = items
    .filter((item) => item.role === "user" && (item.type === undefined || item.type === "message"))
    .map((item) => contentText(item.content, ["input_text", "text"]))
    .filter((text) => text !== "");
  const lastType = items.at(-1)?.type;
  const tools = asArray(body.tools)
    .map(asRecord)
    .filter((tool) => typeof tool.name === "string" && (tool.type === "function" || tool.type === "custom"))
    .map((tool) => ({
      name: tool.name as string,
      freeform: tool.type === "custom",
      schema: tool.type === "function" ? tool.parameters : undefined,
    }));
  return {
    api: "openai-responses",
    model: typeof body.model === "string" ? body.model : "",
    stream: body.stream === true,
    lastUserText: userTexts.at(-1) ?? "",
    userTexts: userTexts.length,
    endsWithToolResult: typeof lastType === "string" && lastType.endsWith("_call_output"),
    tools,
    includeUsage: false,
    outputSchema: formatSchema(body),
  };
}

function reply(res: ServerResponse, request: RequestFacts, answer: FakeReply): void {
  if (request.stream) streamResponse(res, request, answer);
  else sendJson(res, 200, responseObject(request, answer, true));
}

/** The Responses wire API. */
export const openAiResponses: WireApi = {
  id: "openai-responses",
  parse,
  reply,
  error: sendOpenAiError,
  reject: (request) => rejectStrictSchema(request, "text.format.schema"),
};
