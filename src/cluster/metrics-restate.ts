/**
 * The pool's queue depth, from Restate itself: executions of the `sssfRun` workflow Restate holds
 * without a worker (pending, ready to be sent, or backing off after the pool answered "no free slot"),
 * read through its introspection SQL (`POST <admin>/query`).
 */

import { RUN_SERVICE } from "./cluster-wire.js";
import { httpRequest } from "./restate-http.js";

/** The most a scrape waits for Restate's answer. */
const QUERY_TIMEOUT_MS = 2000;

/** Run executions waiting in Restate for a worker; NaN when Restate cannot say (Prometheus shows a gap). */
export async function restateQueueDepth(admin: string): Promise<number> {
  const query = `SELECT count(*) AS n FROM sys_invocation WHERE target_service_name = '${RUN_SERVICE}' AND target_handler_name = 'run' AND status IN ('pending', 'ready', 'backing-off')`;
  try {
    const reply = await httpRequest(
      "POST",
      `${admin.replace(/\/+$/, "")}/query`,
      { query },
      { signal: AbortSignal.timeout(QUERY_TIMEOUT_MS) },
    );
    if (reply.status !== 200) return Number.NaN;
    const rows = (JSON.parse(reply.body) as { rows?: { n?: unknown }[] }).rows;
    const n = Number(rows?.[0]?.n);
    return Number.isFinite(n) ? n : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
