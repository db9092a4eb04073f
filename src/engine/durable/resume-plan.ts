import { existsSync } from "node:fs";
import type { SssfConfig } from "../../config/config-types.js";
import { UsageError } from "../../errors/usage-error.js";
import { openTraceDb } from "../../trace/database.js";
import { getSession, listPhases, listSteps } from "../../trace/queries.js";
import { traceMayExist } from "../../trace/trace-location.js";
import { checkResumable } from "./resume-checks.js";
import { buildJournal } from "./step-journal.js";

/** What a resume runs: the session's workflow and request, and the flags its journal recorded. */
export interface ResumePlan {
  workflow: string;
  request: string;
  agent: string | null;
  merge: boolean;
  yes: boolean;
}

/**
 * Reads how to resume `adwId` from the trace (opened read-only). Throws UsageError naming the id when
 * there is no trace, no such session, or a run that finished accepted.
 */
export function readResumePlan(config: SssfConfig, adwId: string): ResumePlan {
  if (!traceMayExist(config.dbPath, existsSync))
    throw new UsageError(
      `sssf resume ${adwId}: no trace at ${config.dbPath} (run a workflow first)`,
      "<adw_id>",
    );
  const db = openTraceDb(config.dbPath, { readonly: true });
  try {
    const session = getSession(db, adwId);
    checkResumable(adwId, session, config);
    const start = buildJournal(listSteps(db, adwId), listPhases(db, adwId)).start;
    return {
      workflow: start?.workflow ?? session?.workflow ?? "",
      request: start?.request ?? session?.request ?? "",
      agent: start?.agent ?? null,
      merge: start?.merge ?? false,
      yes: start?.yes ?? false,
    };
  } finally {
    db.close();
  }
}
