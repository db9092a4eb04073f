/**
 * One model request end to end: route it, parse it, pick the step, wait out its `delayMs`, log it,
 * answer it (or hold it open for a hang). The log entry is written before the answer, so whoever got
 * the answer sees the entry.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendHttpError } from "./http-error.js";
import { parseBody, readBody, sendJson } from "./http-io.js";
import { estimateTokens, planAnswer } from "./plan-answer.js";
import { pickHeaders, type RequestLog } from "./request-log.js";
import { modelList, routeRequest } from "./route-request.js";
import type { ScriptState } from "./script-state.js";
import type { FakeApi, LoggedRequest } from "./types.js";
import { asRecord } from "./wire-api.js";

/** The server state a request needs. */
export interface ModelRequestContext {
  state: ScriptState;
  log: RequestLog;
  /** True while `hang(true)` is in force. */
  hangAll(): boolean;
  /** A fresh number for response and call ids. */
  nextSeq(): number;
}

/**
 * Resolves true after `ms`, or false as soon as the response closes (the client left, the server
 * closed): no timer outlives the connection. Never rejects.
 */
function waitUnlessClosed(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off("close", onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once("close", onClose);
  });
}

/**
 * Serves `req` whose path (and query) is `target`. Rejects only if reading the body fails; the
 * caller drops the connection then.
 */
export async function serveModelRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  context: ModelRequestContext,
): Promise<void> {
  const url = new URL(target, "http://127.0.0.1");
  const bodyText = await readBody(req);
  const received = new Date().toISOString();
  const body = parseBody(bodyText);
  const record = (api: FakeApi | null, step: LoggedRequest["step"], status: number | null) =>
    context.log.addRequest({
      kind: "request",
      time: new Date().toISOString(),
      received,
      method: req.method ?? "GET",
      path: target,
      headers: pickHeaders(req.headers),
      body,
      bytes: Buffer.byteLength(bodyText),
      api,
      step,
      status,
    });

  const route = routeRequest(req.method, url.pathname);
  if (route.kind === "unknown") {
    record(null, null, 404);
    return sendJson(res, 404, {
      error: { message: `fake model server: no route for ${req.method} ${url.pathname}` },
    });
  }
  if (route.kind === "models") {
    record(null, null, 200);
    return sendJson(res, 200, modelList());
  }
  const api = route.api;
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    record(api.id, null, 400);
    return api.error(res, 400, "fake model server: the request body must be a JSON object");
  }
  if (route.kind === "count") {
    record(api.id, null, 200);
    return api.countTokens?.(res, estimateTokens(bodyText));
  }
  // A held response is simply never written; closing the server or the client ends it.
  if (context.hangAll()) return record(api.id, null, null);

  const request = { ...api.parse(asRecord(body), url), bodyText };
  // A request the real API refuses up front (an invalid strict schema) uses up no step.
  const rejection = api.reject?.(request) ?? null;
  if (rejection !== null) {
    record(api.id, null, rejection.status);
    return api.error(res, rejection.status, rejection.message, rejection);
  }
  const selected = context.state.take(request);
  const answer = planAnswer(selected?.step, request, context.state.fallback, context.nextSeq());
  const step = selected ? selected.index : "default";
  if (answer.kind === "hang") return record(api.id, step, null);
  const delayMs = selected?.step.delayMs ?? 0;
  // A client that went away during the wait gets nothing; its entry says so with status null.
  if (delayMs > 0 && !(await waitUnlessClosed(res, delayMs))) return record(api.id, step, null);
  if (answer.kind === "error") {
    record(api.id, step, answer.status);
    return api.error(res, answer.status, answer.message);
  }
  if (answer.kind === "http_error") {
    record(api.id, step, answer.error.status);
    return sendHttpError(res, api.id, answer.error);
  }
  record(api.id, step, 200);
  api.reply(res, request, answer.reply);
}
