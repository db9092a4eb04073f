import { hostname } from "node:os";
import type { SssfConfig } from "../../config/config-types.js";
import { UsageError } from "../../errors/usage-error.js";
import type { SessionRow } from "../../trace/events.js";
import { displayTraceLocation } from "../../trace/trace-location.js";

/**
 * Refuses a resume that has nothing to continue: no such session, a run that finished accepted, or one
 * still running on another host (unless `takingOver`: a cluster worker's retry). (A live run on this host holds the session's lock: the lock refuses.)
 */
export function checkResumable(
  adwId: string,
  existing: SessionRow | undefined,
  config: SssfConfig,
  takingOver = false,
): void {
  if (existing === undefined)
    throw new UsageError(
      `sssf resume ${adwId}: no session ${adwId} in ${displayTraceLocation(config.dbPath)} (sssf sessions lists them)`,
      "<adw_id>",
    );
  if (existing.status === "success")
    throw new UsageError(
      `sssf resume ${adwId}: the run finished and was accepted (${existing.reason ?? "accepted"}); there is nothing to resume — start a new run, or join the session with sssf run --adw-id ${adwId}`,
      "<adw_id>",
    );
  // A cluster worker takes over a run its engine retried here: the host that ran it is gone.
  if (!takingOver && existing.status === "running" && existing.host !== null && existing.host !== hostname())
    throw new UsageError(
      `sssf resume ${adwId}: the run is marked running on host ${existing.host} (pid ${existing.pid ?? "?"}); resume it there, or end it with sssf kill there first`,
      "<adw_id>",
    );
}
