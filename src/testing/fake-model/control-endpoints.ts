/**
 * Control endpoints under `/__`, for driving the fake from another process (a test runner talking to
 * `sssf fake-model`): replace or extend the script, read the logs, reset, hang, shut down.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseBody, readBody, sendJson } from "./http-io.js";
import { describeProblems, parseFakeScript, parseFakeSteps } from "./script-schema.js";
import type { FakeModelServer } from "./types.js";

/** The server operations the endpoints call, plus shutdown. */
export type ControlTarget = Pick<
  FakeModelServer,
  "setScript" | "enqueue" | "reset" | "hang" | "requests" | "egress"
> & {
  /** Steps in the script after a change, for the answer. */
  stepCount(): number;
  shutdown(): void;
};

/** Every control endpoint, for the 404 answer. */
export const CONTROL_ENDPOINTS = [
  "POST /__script",
  "POST /__enqueue",
  "GET /__log",
  "GET /__egress",
  "POST /__reset",
  "POST /__hang",
  "POST /__shutdown",
] as const;

const invalid = (res: ServerResponse, message: string) => sendJson(res, 400, { error: { message } });

/** Answers one control request. Never throws (a bad body is a 400, an unknown endpoint a 404). */
export async function handleControl(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  target: ControlTarget,
): Promise<void> {
  const body = parseBody(await readBody(req));
  switch (`${req.method} ${pathname}`) {
    case "POST /__script": {
      const parsed = parseFakeScript(body);
      if (!parsed.ok) return invalid(res, `invalid script: ${describeProblems(parsed.problems)}`);
      target.setScript(parsed.value);
      return sendJson(res, 200, { ok: true, steps: target.stepCount() });
    }
    case "POST /__enqueue": {
      const parsed = parseFakeSteps(body);
      if (!parsed.ok) return invalid(res, `invalid steps: ${describeProblems(parsed.problems)}`);
      target.enqueue(...parsed.value);
      return sendJson(res, 200, { ok: true, steps: target.stepCount() });
    }
    case "GET /__log":
      return sendJson(res, 200, target.requests());
    case "GET /__egress":
      return sendJson(res, 200, target.egress());
    case "POST /__reset":
      target.reset();
      return sendJson(res, 200, { ok: true });
    case "POST /__hang": {
      const on = body && typeof body === "object" ? (body as Record<string, unknown>).on : undefined;
      if (typeof on !== "boolean") return invalid(res, 'expected a body {"on": true|false}');
      target.hang(on);
      return sendJson(res, 200, { ok: true, hang: on });
    }
    case "POST /__shutdown":
      // Close only once the answer is out, or the caller sees a reset connection.
      res.on("finish", () => target.shutdown());
      return sendJson(res, 200, { ok: true });
    default:
      return sendJson(res, 404, {
        error: {
          message: `unknown control endpoint ${req.method} ${pathname}; known: ${CONTROL_ENDPOINTS.join(", ")}`,
        },
      });
  }
}
