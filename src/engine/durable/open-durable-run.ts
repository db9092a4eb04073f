import type { SessionTrace } from "../../session/session-trace.js";
import type { SessionRow } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
import { latestAcceptedEnvelope, listPhases, listSteps } from "../../trace/store-queries.js";
import { LocalDurableRun } from "./local-durable-run.js";
import type { RunRoots } from "./run-roots.js";
import { buildJournal, type StepJournal } from "./step-journal.js";

/** What of a run request its journal's start step records, and whether it resumes. */
export interface DurableRunRequest {
  workflow: { name: string };
  request: string;
  agent?: string | undefined;
  merge?: boolean | undefined;
  yes?: boolean | undefined;
  resume?: boolean | undefined;
  /** `--fake-script`'s absolute path: the attempt ran offline. */
  fakeScript?: string | undefined;
  /** `--best-of N`. */
  bestOf?: number | undefined;
}

/**
 * The attempt's durable executor: replaying the journal on a resume, journaling only otherwise.
 * `roots` are where this attempt runs: the journal's results are handed on with their paths there.
 */
export async function openDurableRun(
  options: DurableRunRequest,
  session: { adwId: string; db: TraceSql; existing: SessionRow | undefined },
  trace: SessionTrace,
  roots: RunRoots,
): Promise<LocalDurableRun> {
  const steps = await listSteps(session.db, session.adwId);
  const journal: StepJournal = buildJournal(steps, await listPhases(session.db, session.adwId));
  const attempt = steps.reduce((highest, step) => Math.max(highest, step.attempt), 0) + 1;
  const resume = options.resume === true;
  const durable = new LocalDurableRun(trace, journal, { attempt, replay: resume, roots });
  const previous = resume
    ? durable.relocated(journal.start?.previous ?? null)
    : session.existing
      ? await latestAcceptedEnvelope(session.db, session.adwId)
      : null;
  durable.started({
    workflow: options.workflow.name,
    request: options.request,
    agent: options.agent ?? null,
    merge: options.merge === true,
    yes: options.yes === true,
    previous,
    ...(options.fakeScript !== undefined ? { fake_script: options.fakeScript } : {}),
    ...(options.bestOf !== undefined ? { best_of: options.bestOf } : {}),
  });
  if (resume)
    trace.event({
      type: "log",
      name:
        journal.attempt === 0
          ? "resume: no journal on record (a trace older than sssf resume); every phase runs again"
          : `resume: attempt ${attempt} answers from attempt ${journal.attempt}'s journal (${journal.phases.size} completed phase${journal.phases.size === 1 ? "" : "s"})`,
      phaseId: null,
      payload: { attempt, from_attempt: journal.attempt, completed: journal.phases.size },
    });
  return durable;
}
