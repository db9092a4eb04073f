import { existsSync } from "node:fs";
import type { SssfConfig } from "../../config/config-types.js";
import { UsageError } from "../../errors/usage-error.js";
import { openTraceStore } from "../../trace/open-store.js";
import { getSession, listPhases, listSteps } from "../../trace/store-queries.js";
import { traceMayExist } from "../../trace/trace-location.js";
import { checkResumable } from "./resume-checks.js";
import { buildJournal } from "./step-journal.js";

/** What a resume runs: the session's workflow and request, and the flags its journal recorded. */
export interface ResumePlan {
  workflow: string;
  request: string;
  agent: string | null;
  /** `--best-of N` as the journaled attempt ran with it; null: without. */
  bestOf: number | null;
  merge: boolean;
  yes: boolean;
  /** The fake model script the journaled attempt ran offline with (`--fake-script`); null: it ran online. */
  fakeScript: string | null;
}

/**
 * Reads how to resume `adwId` from the trace (opened read-only). Rejects with UsageError naming the id when
 * there is no trace, no such session, or a run that finished accepted.
 */
export async function readResumePlan(config: SssfConfig, adwId: string): Promise<ResumePlan> {
  if (!traceMayExist(config.dbPath, existsSync))
    throw new UsageError(
      `sssf resume ${adwId}: no trace at ${config.dbPath} (run a workflow first)`,
      "<adw_id>",
    );
  const db = await openTraceStore(config.dbPath, { readonly: true });
  try {
    const session = await getSession(db, adwId);
    checkResumable(adwId, session, config);
    const start = buildJournal(await listSteps(db, adwId), await listPhases(db, adwId)).start;
    return {
      workflow: start?.workflow ?? session?.workflow ?? "",
      request: start?.request ?? session?.request ?? "",
      agent: start?.agent ?? null,
      bestOf: start?.best_of ?? null,
      merge: start?.merge ?? false,
      yes: start?.yes ?? false,
      fakeScript: start?.fake_script ?? null,
    };
  } finally {
    await db.close();
  }
}
