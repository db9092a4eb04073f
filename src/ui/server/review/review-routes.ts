import { Hono } from "hono";
import { badRequest } from "../guard/request-errors.js";
import { SESSION_ID, type SessionEnv } from "../guard/session-guard.js";
import type { LiveHub } from "../live-hub.js";
import { readAttemptDiff } from "./attempt-diff.js";
import { readBaseDrift } from "./base-drift.js";
import { readFinalEnvelope } from "./final-envelope.js";
import { phaseTreeDiff, readPhaseChanges } from "./phase-trees.js";
import { classifyRun } from "./run-outcome.js";

/** A phase id from the query: absent is undefined, anything but a plain token a 400 naming the parameter. */
function phaseParam(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (!SESSION_ID.test(value))
    throw badRequest(`${name}: expected a phase id, got ${JSON.stringify(value.slice(0, 80))}`);
  return value;
}

/**
 * The reviewer's read-only routes under `/sessions/:adwId` (after `sessionGuard`: 400 for a malformed
 * id, 404 for an unknown one): why the run ended (`outcome`), what each phase changed
 * (`phase-changes`, and `phase-changes/diff?phase=` or `?from=&to=`, `from=base` for the run's
 * base commit), how far its base branch moved (`base-drift`), its final envelope, and the diff a
 * best-of attempt saved in the session folder (`phases/:phaseId/attempts/:attempt/diff`).
 */
export function reviewRoutes(hub: LiveHub, sessionsDir: string): Hono<SessionEnv> {
  const routes = new Hono<SessionEnv>();

  routes.get("/sessions/:adwId/outcome", async (c) => c.json(await classifyRun(hub.db, c.get("session"))));

  routes.get("/sessions/:adwId/phase-changes", async (c) =>
    c.json(await readPhaseChanges(hub.db, c.get("session"))),
  );

  routes.get("/sessions/:adwId/phase-changes/diff", async (c) => {
    const phase = phaseParam(c.req.query("phase"), "phase");
    const from = phaseParam(c.req.query("from"), "from"); // or `base`: the run's base commit
    const to = phaseParam(c.req.query("to"), "to");
    const one = phase !== undefined && from === undefined && to === undefined;
    const pair = phase === undefined && from !== undefined && to !== undefined;
    if (!one && !pair)
      throw badRequest("expected either phase=<phase id>, or both from=<phase id or base> and to=<phase id>");
    const ask = phase !== undefined ? { phase } : { from: from as string, to: to as string };
    const diff = await phaseTreeDiff(hub.db, c.get("session"), ask);
    return diff
      ? c.json(diff)
      : c.json(
          {
            error:
              "no checkpoint of that phase in this run (only a worktree run's agent and code phases have one)",
          },
          404,
        );
  });

  routes.get("/sessions/:adwId/base-drift", async (c) =>
    c.json(await readBaseDrift(hub.db, c.get("session"))),
  );

  routes.get("/sessions/:adwId/phases/:phaseId/attempts/:attempt/diff", async (c) => {
    const phaseId = phaseParam(c.req.param("phaseId"), "phase_id") as string;
    const raw = c.req.param("attempt");
    const attempt = Number(raw);
    if (!/^[0-9]{1,4}$/.test(raw) || attempt < 1)
      throw badRequest(`attempt: expected a whole number from 1, got ${JSON.stringify(raw.slice(0, 80))}`);
    const found = await readAttemptDiff(hub.db, c.get("session").adw_id, phaseId, attempt, sessionsDir);
    return "diff" in found ? c.json(found.diff) : c.json({ error: found.error }, found.status);
  });

  routes.get("/sessions/:adwId/final-envelope", async (c) => {
    const found = await readFinalEnvelope(hub.db, c.get("session"));
    return found ? c.json(found) : c.json({ error: "the run has no envelope" }, 404);
  });
  return routes;
}
