/**
 * The contract each wire-API module implements: read a request into the few facts scripting needs,
 * and write a reply or an error in that API's exact shape (streaming or not).
 */
import type { ServerResponse } from "node:http";
import type { FakeApi } from "./types.js";

/** A tool the request offers, with the JSON schema of its arguments (absent for freeform tools). */
export interface OfferedTool {
  name: string;
  /** A Responses `custom` tool: its call carries a raw `input` string, not JSON arguments. */
  freeform: boolean;
  schema: unknown;
}

/** A schema the request asks the API (or the CLI, through a tool) to hold the final answer to. */
export interface NativeOutputSchema {
  /** `tool`: a tool the model must call with the answer (claude's StructuredOutput); `format`: a response format. */
  via: "tool" | "format";
  /** The tool's name, or the format's name (`codex_output_schema`…; "" when the API has none). */
  name: string;
  schema: unknown;
  /** OpenAI's `strict: true`: the schema must fit the strict subset, or the request is refused. */
  strict: boolean;
}

/** Why an API refuses a request before generating (an invalid strict schema), in its own error shape. */
export interface RequestRejection {
  status: number;
  message: string;
  /** OpenAI's `code` and `param` (`invalid_json_schema`, `text.format.schema`). */
  code?: string;
  param?: string;
}

/** What scripting and default replies need to know about a generation request. */
export interface ParsedRequest extends RequestFacts {
  /** The raw body, for marker scanning and the default input-token estimate. */
  bodyText: string;
}

/** The facts a wire API reads out of a request body (and, for Gemini, its URL). */
export interface RequestFacts {
  api: FakeApi;
  model: string;
  stream: boolean;
  /** Text of the last user message that carries text; tool results do not count. */
  lastUserText: string;
  /** User messages that carry text. */
  userTexts: number;
  /** The conversation ends with a tool result. */
  endsWithToolResult: boolean;
  tools: OfferedTool[];
  /** OpenAI chat: the client asked for the trailing usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  /** The native output schema the request carries, or null. */
  outputSchema: NativeOutputSchema | null;
}

/** A tool call to send: JSON arguments, or a freeform input string for custom tools. */
export type FakeToolCall =
  | { name: string; freeform: false; args: Record<string, unknown> }
  | { name: string; freeform: true; input: string };

/** Token counts with every field filled in. */
export interface ReplyUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** A successful answer, independent of the wire API. */
export interface FakeReply {
  /** Assistant text; empty when the reply is only a tool call. */
  text: string;
  toolCall?: FakeToolCall;
  usage: ReplyUsage;
  /** Server-wide sequence number, used to mint response and call ids. */
  seq: number;
}

/** One wire API. `parse` never throws: missing fields read as empty. */
export interface WireApi {
  id: FakeApi;
  parse(body: Record<string, unknown>, url: URL): RequestFacts;
  reply(res: ServerResponse, request: ParsedRequest, reply: FakeReply): void;
  error(res: ServerResponse, status: number, message: string, details?: RequestRejection): void;
  /** Refuses a request the real API would refuse before generating (null: it is served). Never throws. */
  reject?(request: ParsedRequest): RequestRejection | null;
  /** Answers the API's token-counting route, where it has one. */
  countTokens?(res: ServerResponse, tokens: number): void;
}

/** A loose object view of an unknown JSON value. Never throws. */
export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** An array view of an unknown JSON value (anything else is empty). Never throws. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The text of a message's content: a string, or the `text` of its text-like parts joined by newlines. */
export function contentText(content: unknown, partTypes: readonly string[]): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map(asRecord)
    .filter(
      (part) =>
        typeof part.text === "string" && (part.type === undefined || partTypes.includes(String(part.type))),
    )
    .map((part) => part.text as string)
    .join("\n");
}

/** A call's arguments as JSON; a freeform call is wrapped as `{input}` for APIs without freeform tools. */
export function toolArguments(call: FakeToolCall): Record<string, unknown> {
  return call.freeform ? { input: call.input } : call.args;
}
