/**
 * Reads each wire API's answer (streamed or not) back into text, tool calls and usage, the way the
 * CLIs do, so the tests assert on what a client would see.
 */
import { type DecodedReply, readSseJson } from "./fake-model-fixture.js";

type Call = DecodedReply["toolCalls"][number];
const isStream = (response: Response) =>
  (response.headers.get("content-type") ?? "").startsWith("text/event-stream");

interface ChatToolDelta {
  index: number;
  id?: string;
  function: { name?: string; arguments: string };
}
interface ChatChunk {
  choices: { delta: { content?: string; tool_calls?: ChatToolDelta[] }; finish_reason: string | null }[];
  usage?: Record<string, unknown>;
}
interface ChatCompletion {
  choices: { message: { content: string | null; tool_calls?: ChatToolDelta[] } }[];
  usage: Record<string, unknown>;
}

/** OpenAI chat completions. */
export async function decodeChat(response: Response): Promise<DecodedReply> {
  if (!isStream(response)) {
    const body = (await response.json()) as ChatCompletion;
    const message = body.choices[0]?.message;
    return {
      text: message?.content ?? "",
      toolCalls: (message?.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name ?? "",
        args: JSON.parse(call.function.arguments),
      })),
      usage: body.usage,
    };
  }
  const chunks = (await readSseJson(response)) as unknown as ChatChunk[];
  let text = "";
  const calls: { id?: string; name: string; argText: string }[] = [];
  let usage: Record<string, unknown> = {};
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? "";
      for (const delta of choice.delta.tool_calls ?? []) {
        calls[delta.index] ??= { id: delta.id, name: delta.function.name ?? "", argText: "" };
        const call = calls[delta.index];
        if (call) call.argText += delta.function.arguments;
      }
    }
  }
  return {
    text,
    toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.argText) })),
    usage,
  };
}

interface ResponseItem {
  type: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  input?: string;
  content?: { text: string }[];
}
interface ResponseObject {
  output: ResponseItem[];
  usage: Record<string, unknown>;
}

function decodeResponseObject(response: ResponseObject): DecodedReply {
  let text = "";
  const toolCalls: Call[] = [];
  for (const item of response.output) {
    if (item.type === "message") text += (item.content ?? []).map((part) => part.text).join("");
    if (item.type === "function_call")
      toolCalls.push({
        id: item.call_id,
        type: item.type,
        name: item.name ?? "",
        args: JSON.parse(item.arguments ?? ""),
      });
    if (item.type === "custom_tool_call")
      toolCalls.push({ id: item.call_id, type: item.type, name: item.name ?? "", input: item.input ?? "" });
  }
  return { text, toolCalls, usage: response.usage };
}

/** OpenAI Responses: streamed text is rebuilt from the deltas and checked against `response.completed`. */
export async function decodeResponses(response: Response): Promise<DecodedReply & { deltaText?: string }> {
  if (!isStream(response)) return decodeResponseObject((await response.json()) as ResponseObject);
  const events = await readSseJson(response);
  const completed = events.find((event) => event.type === "response.completed");
  const deltaText = events
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => event.delta)
    .join("");
  return { ...decodeResponseObject(completed?.response as ResponseObject), deltaText };
}

interface AnthropicBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
}

/** Anthropic messages: streamed blocks are rebuilt from `content_block_*` events. */
export async function decodeAnthropic(response: Response): Promise<DecodedReply> {
  const toReply = (blocks: AnthropicBlock[], usage: Record<string, unknown>): DecodedReply => ({
    text: blocks.map((block) => block.text ?? "").join(""),
    toolCalls: blocks
      .filter((block) => block.type === "tool_use")
      .map((block) => ({ id: block.id, name: block.name ?? "", args: block.input ?? {} })),
    usage,
  });
  if (!isStream(response)) {
    const body = (await response.json()) as { content: AnthropicBlock[]; usage: Record<string, unknown> };
    return toReply(body.content, body.usage);
  }
  const blocks: AnthropicBlock[] = [];
  const json: string[] = [];
  let usage: Record<string, unknown> = {};
  for (const event of await readSseJson(response)) {
    const index = Number(event.index);
    if (event.type === "content_block_start") blocks[index] = { ...(event.content_block as AnthropicBlock) };
    if (event.type === "content_block_delta") {
      const delta = event.delta as { type: string; text?: string; partial_json?: string };
      const block = blocks[index];
      if (block && delta.type === "text_delta") block.text = (block.text ?? "") + delta.text;
      if (delta.type === "input_json_delta") json[index] = (json[index] ?? "") + delta.partial_json;
    }
    if (event.type === "content_block_stop" && json[index] !== undefined) {
      const block = blocks[index];
      if (block) block.input = JSON.parse(json[index] ?? "");
    }
    if (event.type === "message_delta") usage = event.usage as Record<string, unknown>;
  }
  return toReply(blocks, usage);
}

interface GeminiChunk {
  candidates: {
    content: { parts: { text?: string; functionCall?: { name: string; args: Record<string, unknown> } }[] };
  }[];
  usageMetadata?: Record<string, unknown>;
}

/** Gemini: text parts concatenated over chunks, function calls collected, usage from the last chunk. */
export async function decodeGemini(response: Response): Promise<DecodedReply> {
  const chunks = isStream(response)
    ? ((await readSseJson(response)) as unknown as GeminiChunk[])
    : [(await response.json()) as GeminiChunk];
  let text = "";
  const toolCalls: Call[] = [];
  let usage: Record<string, unknown> = {};
  for (const chunk of chunks) {
    for (const part of chunk.candidates[0]?.content.parts ?? []) {
      text += part.text ?? "";
      if (part.functionCall) toolCalls.push({ name: part.functionCall.name, args: part.functionCall.args });
    }
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
  }
  return { text, toolCalls, usage };
}
