import { Hono } from "hono";
import { commitDiff, readRunChanges, savedPhaseDiff, totalDiff } from "./changes-queries.js";
import type { SessionEnv } from "./guard/session-guard.js";
import type { LiveHub } from "./live-hub.js";
import { readSuiteLog } from "./suite-log.js";

/**
 * Read-only routes over what a run changed and what its suites printed: the commits and saved diffs,
 * the total diff, one commit's diff, a phase's saved diff and a suite's full log. Git runs in the
 * run's own repository through `runGit`, with bounded output; files are read only from inside the
 * session directory. Everything is passed through `redactSecrets`. The session comes from
 * `sessionGuard` (400/404 before any of these run).
 */
export function changesRoutes(hub: LiveHub, sessionsDir: string): Hono<SessionEnv> {
  const routes = new Hono<SessionEnv>();

  routes.get("/sessions/:adwId/changes", async (c) => {
    return c.json(await readRunChanges(hub.db, c.get("session"), sessionsDir));
  });

  routes.get("/sessions/:adwId/diff", async (c) => {
    const diff = await totalDiff(c.get("session"));
    return diff ? c.json(diff) : c.json({ error: "the run has no branch of its own to diff" }, 404);
  });

  routes.get("/sessions/:adwId/commits/:sha", async (c) => {
    const diff = await commitDiff(hub.db, c.get("session"), c.req.param("sha"));
    return diff ? c.json(diff) : c.json({ error: "not a commit this run made" }, 404);
  });

  routes.get("/sessions/:adwId/phases/:phaseId/diff", async (c) => {
    const diff = await savedPhaseDiff(hub.db, c.req.param("adwId"), c.req.param("phaseId"), sessionsDir);
    return diff ? c.json(diff) : c.json({ error: "the phase saved no diff in its session directory" }, 404);
  });

  routes.get("/sessions/:adwId/phases/:phaseId/suite-log", async (c) => {
    const envelope = c.req.query("envelope") ?? "";
    const result = await readSuiteLog(
      hub.db,
      c.req.param("adwId"),
      c.req.param("phaseId"),
      envelope,
      sessionsDir,
    );
    return "log" in result ? c.json(result.log) : c.json({ error: result.missing }, 404);
  });
  return routes;
}
