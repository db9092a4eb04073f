/**
 * Scripted HTTP errors (`httpError` steps): the status, headers and body a provider sends when it
 * rate-limits, runs out of quota or is overloaded, in each wire API's own error shape, so the real
 * CLIs meet what they would meet in production.
 */
import type { ServerResponse } from "node:http";
import type { FakeApi, FakeErrorKind, FakeHttpError } from "./types.js";

/** The kind a status stands for when the step names none. */
export function errorKindOf(error: FakeHttpError): FakeErrorKind {
  if (error.kind !== undefined) return error.kind;
  if (error.status === 429) return "rate_limit";
  if (error.status === 529 || error.status === 503) return "overloaded";
  return "server_error";
}

const MESSAGES: Record<FakeErrorKind, string> = {
  rate_limit: "Rate limit reached for requests. Please try again later.",
  usage_limit: "You exceeded your current quota, please check your plan and billing details.",
  overloaded: "Overloaded",
  server_error: "The server had an error while processing your request.",
};

/** Anthropic: `{type:"error", error:{type, message}}`. */
function anthropicBody(kind: FakeErrorKind, message: string): unknown {
  const type = {
    rate_limit: "rate_limit_error",
    usage_limit: "rate_limit_error",
    overloaded: "overloaded_error",
    server_error: "api_error",
  }[kind];
  return { type: "error", error: { type, message } };
}

/** OpenAI (chat and responses): `{error:{message, type, param, code}}`. */
function openAiBody(kind: FakeErrorKind, message: string): unknown {
  const [type, code] = {
    rate_limit: ["requests", "rate_limit_exceeded"],
    usage_limit: ["insufficient_quota", "insufficient_quota"],
    overloaded: ["server_error", "server_is_overloaded"],
    server_error: ["server_error", "server_error"],
  }[kind];
  return { error: { message, type, param: null, code } };
}

/** Google: `{error:{code, message, status}}` with `RESOURCE_EXHAUSTED` for quota and rate limits. */
function googleBody(status: number, kind: FakeErrorKind, message: string): unknown {
  const reason = {
    rate_limit: "RESOURCE_EXHAUSTED",
    usage_limit: "RESOURCE_EXHAUSTED",
    overloaded: "UNAVAILABLE",
    server_error: "INTERNAL",
  }[kind];
  return { error: { code: status, message, status: reason } };
}

/** The body a provider of `api` sends for `error` when the step gives none. Never throws. */
export function defaultErrorBody(api: FakeApi, error: FakeHttpError): unknown {
  const kind = errorKindOf(error);
  const message = error.message ?? MESSAGES[kind];
  if (api === "anthropic") return anthropicBody(kind, message);
  if (api === "gemini") return googleBody(error.status, kind, message);
  return openAiBody(kind, message);
}

/** Writes the scripted error: its headers, then its body (a string as text, anything else as JSON). */
export function sendHttpError(res: ServerResponse, api: FakeApi, error: FakeHttpError): void {
  const body = error.body === undefined ? defaultErrorBody(api, error) : error.body;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const type = typeof body === "string" ? "text/plain; charset=utf-8" : "application/json";
  res.writeHead(error.status, {
    "content-type": type,
    "content-length": Buffer.byteLength(text),
    ...error.headers,
  });
  res.end(text);
}
