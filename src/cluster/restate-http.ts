/**
 * Restate's HTTP doors as sssf uses them (docs/cluster.md): the ingress (submit a run, attach to its
 * outcome, resolve or await an engineer's answer) and the admin API (register the pool's deployment).
 * Plain node:http, with no timeout of its own: attaching to a run waits as long as the run takes.
 */

import http from "node:http";
import https from "node:https";
import { hostname } from "node:os";
import { SssfError } from "../errors/sssf-error.js";
import { type ClusterAnswer, type ClusterRunRequest, RUN_SERVICE } from "./cluster-wire.js";

/** The name others reach a listener on `host` at: this machine's name for a wildcard address. */
export function reachableHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "") return hostname();
  return host.includes(":") ? `[${host}]` : host;
}

/** One HTTP answer: its status and its body as text. */
export interface HttpReply {
  status: number;
  body: string;
}

/** Sends one request with a JSON body (or none) and resolves with the reply; rejects only when no reply came. */
export function httpRequest(
  method: string,
  url: string,
  body: unknown,
  options: { signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<HttpReply> {
  const target = new URL(url);
  const client = target.protocol === "https:" ? https : http;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = client.request(
      target,
      {
        method,
        headers: {
          accept: "application/json",
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
          ...options.headers,
        },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Restate's error bodies are `{ message }`; anything else is shown as it came, shortened. */
export function replyMessage(reply: HttpReply): string {
  try {
    const parsed = JSON.parse(reply.body) as { message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // not JSON
  }
  return reply.body.slice(0, 500) || `HTTP ${reply.status}`;
}

function unreachable(what: string, url: string, error: unknown): SssfError {
  return new SssfError(
    "usage",
    `${what}: cannot reach Restate at ${url} (${(error as Error).message}); is restate-server running there (docs/cluster.md)?`,
  );
}

/** Where Restate listens. */
export interface RestateUrls {
  ingress: string;
  admin: string;
}

const join = (base: string, tail: string) => `${base.replace(/\/+$/, "")}/${tail}`;

/** Starts the run's workflow; resolves false when a run with this adw_id was already submitted. */
export async function submitRun(ingress: string, request: ClusterRunRequest): Promise<boolean> {
  const url = join(ingress, `${RUN_SERVICE}/${request.adw_id}/run/send`);
  let reply: HttpReply;
  try {
    reply = await httpRequest("POST", url, request);
  } catch (error) {
    throw unreachable("--engine restate", ingress, error);
  }
  if (reply.status === 409) return false;
  if (reply.status >= 300)
    throw new SssfError("usage", `--engine restate: Restate refused the run: ${replyMessage(reply)}`);
  // Restate answers a send it had already accepted with that status instead of a new invocation.
  return !/"status"\s*:\s*"PreviouslyAccepted"/.test(reply.body);
}

/** Waits for the run's workflow to end; resolves with Restate's reply (the result, or why it failed). */
export async function attachRun(ingress: string, adwId: string, signal?: AbortSignal): Promise<HttpReply> {
  const url = join(ingress, `restate/workflow/${RUN_SERVICE}/${adwId}/attach`);
  for (;;) {
    try {
      return await httpRequest("GET", url, undefined, signal === undefined ? {} : { signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      // Restate restarting: keep waiting for it.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** How an answer went: recorded, refused (answered already), or queued until a worker is live. */
export type AnswerOutcome = "resolved" | "answered-already" | "queued";

/**
 * Resolves the durable promise of a question. The `approve` handler runs on a worker, so the answer
 * is sent (kept by Restate), then waited for up to `waitMs`: with no live worker it stays queued and
 * is resolved as soon as one joins.
 */
export async function resolveAnswer(
  ingress: string,
  adwId: string,
  answer: ClusterAnswer,
  waitMs = 15_000,
): Promise<AnswerOutcome> {
  const url = join(ingress, `${RUN_SERVICE}/${adwId}/approve/send`);
  let reply: HttpReply;
  try {
    reply = await httpRequest("POST", url, answer, {
      headers: { "idempotency-key": `approve-${answer.key}-${answer.at}` },
    });
  } catch (error) {
    throw unreachable("sssf approve", ingress, error);
  }
  if (reply.status >= 300) throw new SssfError("usage", `Restate refused the answer: ${replyMessage(reply)}`);
  const { invocationId } = JSON.parse(reply.body) as { invocationId: string };
  const attach = join(ingress, `restate/invocation/${encodeURIComponent(invocationId)}/attach`);
  try {
    const done = await httpRequest("GET", attach, undefined, { signal: AbortSignal.timeout(waitMs) });
    if (done.status >= 300)
      throw new SssfError("usage", `Restate could not record the answer: ${replyMessage(done)}`);
    return (JSON.parse(done.body) as { resolved: boolean }).resolved ? "resolved" : "answered-already";
  } catch (error) {
    if ((error as Error).name === "AbortError" || (error as Error).name === "TimeoutError") return "queued";
    throw error;
  }
}

/**
 * Waits on the durable promise of a question until it is resolved, through Restate restarts and
 * workers coming and going; rejects only when `signal` aborts.
 */
export async function awaitAnswer(
  ingress: string,
  adwId: string,
  key: string,
  signal: AbortSignal,
): Promise<ClusterAnswer> {
  const url = join(ingress, `${RUN_SERVICE}/${adwId}/answer`);
  for (;;) {
    try {
      // One invocation per question: a call again (after a restart, by another worker) attaches to it.
      const headers = { "idempotency-key": `answer-${key}` };
      const reply = await httpRequest("POST", url, { key }, { signal, headers });
      if (reply.status === 200) return JSON.parse(reply.body) as ClusterAnswer;
    } catch (error) {
      if (signal.aborted) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (signal.aborted) throw new Error("aborted");
  }
}

/** Registers (or re-registers) the deployment Restate calls: the pool's address. */
export async function registerDeployment(admin: string, uri: string): Promise<void> {
  const reply = await httpRequest("POST", join(admin, "deployments"), {
    uri,
    use_http_11: true,
    force: true,
  });
  if (reply.status >= 300)
    throw new SssfError("usage", `Restate at ${admin} refused the deployment ${uri}: ${replyMessage(reply)}`);
}
