/**
 * Gemini generativelanguage (`POST …/models/<model>:streamGenerateContent?alt=sse`, `:generateContent`,
 * `:countTokens`), as gemini-cli speaks it: `functionCall` parts out, `functionResponse` parts back.
 * The model and whether to stream come from the URL; streams are always SSE (what the SDK asks for).
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
  type RequestFacts,
  toolArguments,
  type WireApi,
} from "../wire-api.js";

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** `…/models/gemini-2.5-flash:streamGenerateContent` → model and method, or undefined. Never throws. */
export function geminiTarget(pathname: string): { model: string; method: string } | undefined {
  const found = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(pathname);
  if (!found?.[1] || !found[2]) return undefined;
  return { model: decodeURIComponent(found[1]), method: found[2] };
}

/** `generationConfig.responseJsonSchema` (or the older `responseSchema`), or null. Never throws. */
function responseSchema(body: Record<string, unknown>): NativeOutputSchema | null {
  const config = asRecord(body.generationConfig);
  const schema = config.responseJsonSchema ?? config.responseSchema;
  return schema === undefined ? null : { via: "format", name: "", schema, strict: false };
}

const isToolResult = (content: Record<string, unknown>) =>
  asArray(content.parts).some((part) => asRecord(part).functionResponse !== undefined);

function parse(body: Record<string, unknown>, url: URL): RequestFacts {
  const contents = asArray(body.contents).map(asRecord);
  const userTexts = contents
    .filter((content) => content.role !== "model" && !isToolResult(content))
    .map((content) => contentText(content.parts, []))
    .filter((text) => text !== "");
  const last = contents.at(-1);
  const tools = asArray(body.tools)
    .flatMap((tool) => asArray(asRecord(tool).functionDeclarations))
    .map(asRecord)
    .filter((declaration) => typeof declaration.name === "string")
    .map((declaration) => ({
      name: declaration.name as string,
      freeform: false,
      schema: declaration.parametersJsonSchema ?? declaration.parameters,
    }));
  const target = geminiTarget(url.pathname);
  return {
    api: "gemini",
    model: target?.model ?? "",
    stream: target?.method === "streamGenerateContent",
    lastUserText: userTexts.at(-1) ?? "",
    userTexts: userTexts.length,
    endsWithToolResult: last !== undefined && isToolResult(last),
    tools,
    includeUsage: false,
    outputSchema: responseSchema(body),
  };
}

function reply(res: ServerResponse, request: RequestFacts, answer: FakeReply): void {
  const { input, output, cacheRead, cacheWrite } = answer.usage;
  const prompt = input + cacheRead + cacheWrite;
  const usageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: output,
    totalTokenCount: prompt + output,
    ...(cacheRead > 0 ? { cachedContentTokenCount: cacheRead } : {}),
  };
  const chunk = (parts: unknown[], final: boolean) => ({
    candidates: [{ content: { role: "model", parts }, ...(final ? { finishReason: "STOP" } : {}), index: 0 }],
    ...(final ? { usageMetadata } : {}),
    modelVersion: request.model,
    responseId: `fake-${answer.seq}`,
  });
  const call = answer.toolCall;
  const callPart = call && { functionCall: { name: call.name, args: toolArguments(call) } };
  if (!request.stream) {
    const parts = [...(answer.text || !call ? [{ text: answer.text }] : []), ...(callPart ? [callPart] : [])];
    sendJson(res, 200, chunk(parts, true));
    return;
  }
  const partLists: unknown[][] = splitDeltas(answer.text).map((text) => [{ text }]);
  if (callPart) partLists.push([callPart]);
  if (partLists.length === 0) partLists.push([{ text: "" }]);
  openSse(res);
  partLists.forEach((parts, index) => {
    writeSse(res, chunk(parts, index === partLists.length - 1));
  });
  closeSse(res);
}

/** The Gemini wire API, with `:countTokens`. */
export const gemini: WireApi = {
  id: "gemini",
  parse,
  reply,
  error(res, status, message) {
    sendJson(res, status, {
      error: {
        code: status,
        message,
        status: STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"),
      },
    });
  },
  countTokens(res, tokens) {
    sendJson(res, 200, { totalTokens: tokens });
  },
};
