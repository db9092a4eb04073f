import { type Context, Hono } from "hono";
import { answeredBy, answerRequest, liveRequests } from "../../approval/approval-answer.js";
import { approvalsDir } from "../../approval/approval-files.js";
import type { ApprovalAnswered, ApprovalsView, PendingApproval } from "./api-types.js";
import { jsonBodyLimit } from "./guard/request-errors.js";
import type { SessionEnv } from "./guard/session-guard.js";
import { sessionRoot } from "./session-files.js";

/** The address the request came from, when the server knows it (`@hono/node-server` puts it in env). */
function remoteAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/** True for a request from this machine: 127.0.0.0/8, ::1 or an IPv4-mapped loopback. */
export function fromLoopback(c: Context): boolean {
  const address = remoteAddress(c)?.toLowerCase();
  if (address === undefined) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return address === "::1" || /^127(?:\.\d{1,3}){3}$/.test(v4);
}

/** Who answered from the UI: `user@host (ui)`, the user the server runs as. */
export function uiAnswerer(): string {
  return `${answeredBy()} (ui)`;
}

/**
 * Approvals under `/api/sessions/:adwId/approvals`: the phases waiting for the engineer, and the
 * answer, written exactly as `sssf approve`/`reject` write it (`answerRequest`). Cross-site requests
 * never get here (`requestGuard`: JSON only, same origin) nor unknown sessions (`sessionGuard`); the
 * POST also refuses (403) any request that did not come from this machine, whatever interface the
 * server is bound to.
 */
export function approvalRoutes(sessionsDir: string): Hono<SessionEnv> {
  const routes = new Hono<SessionEnv>();
  const dirOf = (adwId: string) => {
    const root = sessionRoot(sessionsDir, adwId);
    return root === null ? null : approvalsDir(root);
  };

  routes.get("/sessions/:adwId/approvals", (c) => {
    const dir = dirOf(c.req.param("adwId"));
    const pending: PendingApproval[] = (dir === null ? [] : liveRequests(dir).live).map((r) => ({
      phase_id: r.phase_id,
      phase: r.phase,
      phase_number: r.phase_number,
      question: r.question,
      details: r.details,
      asked_at: r.asked_at,
    }));
    const view: ApprovalsView = { pending };
    return c.json(view);
  });

  routes.post("/sessions/:adwId/approvals/:phaseId", jsonBodyLimit(16 * 1024), async (c) => {
    if (!fromLoopback(c)) return c.json({ error: "approvals are answered from this machine only" }, 403);
    let body: { approved?: unknown; reason?: unknown } | null;
    try {
      body = (await c.req.json()) as typeof body;
    } catch {
      return c.json({ error: 'body: expected JSON {"approved": true|false, "reason": "…"}' }, 400);
    }
    const approved = body?.approved;
    const reason = typeof body?.reason === "string" ? body.reason.trim() : "";
    if (typeof approved !== "boolean") {
      return c.json({ error: 'body: expected {"approved": true|false, "reason": "…"}' }, 400);
    }
    if (!approved && reason === "") {
      return c.json({ error: "reason: a rejection needs a reason (the workflow sees it)" }, 400);
    }
    const dir = dirOf(c.req.param("adwId"));
    const phaseId = c.req.param("phaseId");
    const request = dir === null ? undefined : liveRequests(dir).live.find((r) => r.phase_id === phaseId);
    if (dir === null || request === undefined) {
      return c.json({ error: "no phase of this session waits for approval under that id" }, 404);
    }
    const answer = answerRequest(dir, request, { approved, reason, by: uiAnswerer() });
    if (answer === null) return c.json({ error: "this phase is already answered" }, 409);
    const answered: ApprovalAnswered = { phase_id: phaseId, ...answer };
    return c.json(answered);
  });
  return routes;
}
