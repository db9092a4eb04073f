import { Hono } from "hono";
import type { MergeStrategy } from "../../config/config-types.js";
import { isSssfError } from "../../errors/sssf-error.js";
import { openTraceStore } from "../../trace/open-store.js";
import type { TraceSql } from "../../trace/store.js";
import { landRun, MergeRefusedError, previewMerge } from "../../workspace/land-run.js";
import { fromLoopback } from "./approval-routes.js";
import { jsonBodyLimit } from "./guard/request-errors.js";
import type { SessionEnv } from "./guard/session-guard.js";

/** Where the UI merges: the operator's checkout and the config's `merge.strategy`. */
export interface MergeTarget {
  checkout: string;
  strategy: MergeStrategy;
}

/**
 * `sssf merge` in the UI, under `/api/sessions/:adwId/merge`: GET says what would land (behind-base
 * count, conflicts, or the refusal line), POST lands it through `landRun`, the CLI's own code. The POST
 * is guarded as the approvals' are: `requestGuard` (same origin, JSON), `sessionGuard`, and 403 for any
 * peer not on this machine. A refusal is a 409 with the refusal line and what was seen.
 */
export function mergeRoutes(
  read: TraceSql,
  dbPath: string,
  sessionsDir: string,
  target: MergeTarget,
): Hono<SessionEnv> {
  const routes = new Hono<SessionEnv>();
  const context = (db: TraceSql) => ({
    db,
    sessionsDir,
    checkout: target.checkout,
    strategy: target.strategy,
  });

  routes.get("/sessions/:adwId/merge", async (c) =>
    c.json(await previewMerge(context(read), c.req.param("adwId"))),
  );

  routes.post("/sessions/:adwId/merge", jsonBodyLimit(1024), async (c) => {
    if (!fromLoopback(c)) return c.json({ error: "runs are merged from this machine only" }, 403);
    const db = await openTraceStore(dbPath);
    try {
      return c.json(await landRun(context(db), c.req.param("adwId")));
    } catch (error) {
      if (error instanceof MergeRefusedError) return c.json({ error: error.message, look: error.look }, 409);
      if (isSssfError(error)) return c.json({ error: error.message }, error.exitCode === 2 ? 400 : 500);
      throw error;
    } finally {
      await db.close();
    }
  });
  return routes;
}
