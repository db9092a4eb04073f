import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { SessionStatus } from "../../trace/events.js";
import type { ColorScheme, Snapshot } from "./api-types.js";
import { approvalRoutes } from "./approval-routes.js";
import { setArchived } from "./archive.js";
import { changesRoutes } from "./changes-routes.js";
import { badRequest, jsonBodyLimit } from "./guard/request-errors.js";
import { type SessionEnv, sessionGuard } from "./guard/session-guard.js";
import type { LiveHub } from "./live-hub.js";
import { type MergeTarget, mergeRoutes } from "./merge-routes.js";
import { readPhaseDetail, readPhasePromptFiles, readToolCalls, TOOL_CALL_PAGE } from "./phase-queries.js";
import { reviewRoutes } from "./review/review-routes.js";
import { classifyRuns } from "./review/run-outcome.js";
import { readRun } from "./run-queries.js";
import { searchRun } from "./search-queries.js";
import { querySessions, readSession } from "./session-queries.js";
import { readUsage } from "./usage-queries.js";

/** What the JSON routes read from and write to. */
export interface ApiContext {
  hub: LiveHub;
  dbPath: string;
  sessionsDir: string;
  scheme: ColorScheme;
  /** Where the Merge button lands runs (`mergeRoutes`); null: no merge routes. */
  merge: MergeTarget | null;
}

const STATUSES: readonly SessionStatus[] = ["running", "success", "fail", "interrupted"];

function whole(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw badRequest(`${name}: expected a whole number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

function status(value: string | undefined): SessionStatus | undefined {
  if (value === undefined || value === "") return undefined;
  if (!(STATUSES as readonly string[]).includes(value)) {
    throw badRequest(`status: expected one of ${STATUSES.join(", ")}, got "${value}"`);
  }
  return value as SessionStatus;
}

/**
 * The JSON API under `/api`: sessions (search, filters, paging), a run, a phase, a phase's tool calls
 * by page, search inside a run, spend over the trace, a run's changes and suite logs
 * (`changesRoutes`), approvals (`approvalRoutes`) and the archive flag. Every read goes through the
 * hub's read-only connection. Every route under `/sessions/:adwId` passes `sessionGuard` first (400
 * for a malformed id, 404 for an unknown one); cross-site requests never get here (`requestGuard`).
 */
export function apiRoutes(context: ApiContext): Hono<SessionEnv> {
  const api = new Hono<SessionEnv>();
  const { hub } = context;

  api.onError((error, c) => {
    if (error instanceof HTTPException) {
      // Ours carry only a message; one with its own response (a middleware's) keeps it.
      return error.res === undefined ? c.json({ error: error.message }, error.status) : error.getResponse();
    }
    return c.json({ error: `internal error: ${error.message || error.name}` }, 500);
  });
  // `/sessions/:adwId/*` matches the session itself too.
  api.use("/sessions/:adwId/*", sessionGuard(hub));

  api.get("/sessions", async (c) => {
    const snapshot: Snapshot = { tick: hub.cursor.tick, now: new Date().toISOString() };
    const page = await querySessions(hub.db, {
      search: c.req.query("q"),
      status: status(c.req.query("status")),
      workflow: c.req.query("workflow") || undefined,
      archived: ["1", "true"].includes(c.req.query("archived") ?? ""),
      limit: whole(c.req.query("limit"), "limit", 50, 1, 500),
      offset: whole(c.req.query("offset"), "offset", 0, 0, Number.MAX_SAFE_INTEGER),
    });
    return c.json({ ...snapshot, ...page, outcomes: await classifyRuns(hub.db, page.sessions) });
  });

  api.get("/sessions/:adwId", async (c) => {
    // `sssf db rebuild` may replace the database between the guard's read and this one.
    const run = await readRun(hub.db, c.req.param("adwId"), hub.cursor, context.scheme);
    return run ? c.json(run) : c.json({ error: "no such session" }, 404);
  });

  api.get("/sessions/:adwId/phases/:phaseId", async (c) => {
    const detail = await readPhaseDetail(hub.db, c.req.param("adwId"), c.req.param("phaseId"), hub.cursor, {
      sessionsDir: context.sessionsDir,
      scheme: context.scheme,
    });
    return detail ? c.json(detail) : c.json({ error: "no such phase" }, 404);
  });

  api.get("/sessions/:adwId/phases/:phaseId/prompts", async (c) => {
    const files = await readPhasePromptFiles(
      hub.db,
      c.req.param("adwId"),
      c.req.param("phaseId"),
      context.sessionsDir,
    );
    return files ? c.json(files) : c.json({ error: "no such phase" }, 404);
  });

  api.get("/sessions/:adwId/phases/:phaseId/tool-calls", async (c) => {
    const offset = c.req.query("offset");
    const limit = whole(c.req.query("limit"), "limit", TOOL_CALL_PAGE, 1, 5_000);
    const start = offset === undefined ? null : whole(offset, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
    return c.json(await readToolCalls(hub.db, c.req.param("phaseId"), start, limit));
  });

  api.get("/sessions/:adwId/search", async (c) => {
    const q = (c.req.query("q") ?? "").trim();
    if (q === "" || q.length > 500) throw badRequest("q: expected 1 to 500 characters to search for");
    return c.json(await searchRun(hub.db, c.get("session").adw_id, q));
  });

  api.get("/usage", async (c) => c.json(await readUsage(hub.db)));
  api.route("/", changesRoutes(hub, context.sessionsDir));
  api.route("/", approvalRoutes(context.sessionsDir));
  api.route("/", reviewRoutes(hub, context.sessionsDir));
  if (context.merge !== null)
    api.route("/", mergeRoutes(hub.db, context.dbPath, context.sessionsDir, context.merge));

  api.post("/sessions/:adwId/archive", jsonBodyLimit(1024), async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw badRequest('body: expected JSON {"archived": true|false}');
    }
    const archived = (body as { archived?: unknown } | null)?.archived;
    if (typeof archived !== "boolean") throw badRequest('body: expected {"archived": true|false}');
    const adwId = c.get("session").adw_id;
    if (!(await setArchived(context.dbPath, adwId, archived)))
      return c.json({ error: "no such session" }, 404);
    await hub.publishSession(adwId);
    return c.json({ session: await readSession(hub.db, adwId) });
  });

  api.all("*", (c) => c.json({ error: "not found" }, 404));
  return api;
}
