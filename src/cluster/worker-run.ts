/**
 * One run on a worker (docs/cluster.md): the body of the Restate workflow's `run` handler. Restate
 * places it, and runs it again on another worker when this one dies; each execution is an sssf
 * attempt. The first starts the session; a later one finds the session in the shared trace and
 * resumes it: the phases an earlier attempt completed are answered from the trace's journal (their
 * agents get no new request) and the rest runs live, from the run's last pushed work.
 */

import { existsSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import type { Workflow } from "../api/run-api.js";
import type { SssfConfig } from "../config/config-types.js";
import type { RunHost } from "../engine/run-host.js";
import { type RunOutcome, runWorkflow } from "../engine/run-workflow.js";
import type { RuntimeRegistry } from "../runtimes/registry.js";
import { takeOverPayload } from "../session/handed-over.js";
import type { RunReporter } from "../session/reporter.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { SessionRow } from "../trace/events.js";
import { openTraceStore } from "../trace/open-store.js";
import { claimSession, ownerName, type SessionOwner } from "../trace/session-fence.js";
import { readSessionRow } from "../trace/store-queries.js";
import { runBranch, worktreePath } from "../workspace/run-branch.js";
import type { ClusterRunRequest, ClusterRunResult } from "./cluster-wire.js";
import { currentWorkerMetrics } from "./metrics.js";
import { resubmissionRefused } from "./run-lease.js";
import { type WorkerRepo, wipRef } from "./worker-repo.js";

/** What a worker brings to every run it executes. */
export interface WorkerContext {
  /** This worker, as the trace and `sssf workers` name it. */
  id: string;
  repo: WorkerRepo;
  registry: RuntimeRegistry;
  /** The run's config, read from its checkout; the worker points its trace and sessions at its own. */
  loadRun(checkout: string, workflow: string): Promise<{ workflow: Workflow; config: SssfConfig }>;
  /** The trace every worker shares. */
  dbPath: string;
  /** Where this worker keeps its sessions' files (their path is in the trace). */
  sessionsDir: string;
  /** Answers an engineer phase from the durable promise (null: only `sssf approve` on this host). */
  remoteAnswer: RunHost["remoteAnswer"];
  answerVia: Record<string, unknown>;
  reporter: RunReporter;
  signal: AbortSignal;
}

/** Where a run's checkout lives on this worker. */
function checkoutDir(context: WorkerContext, adwId: string): string {
  return path.join(context.repo.workDir, "runs", adwId);
}

/** A session that already ended: its invocation is answered from the trace, nothing runs again. */
function endedResult(context: WorkerContext, row: SessionRow): ClusterRunResult {
  return {
    adw_id: row.adw_id,
    accepted: row.accepted === 1,
    reason: row.reason ?? row.status,
    branch: row.branch,
    head: null,
    wip_ref: null,
    worker: context.id,
  };
}

/**
 * Makes this process the owner of the session `before` names (its row's host and pid), so the attempt
 * taken for dead is fenced off the trace. Throws (Restate retries later) when another worker claimed it
 * first.
 */
async function claimRun(context: WorkerContext, before: SessionRow): Promise<void> {
  const me: SessionOwner = { host: hostname(), pid: process.pid };
  if (before.host === me.host && before.pid === me.pid) return;
  const store = await openTraceStore(context.dbPath);
  try {
    if (!(await claimSession(store, before.adw_id, before, me)))
      throw new Error(
        `run ${before.adw_id}: another worker claimed it after ${ownerName(before)} was taken for dead`,
      );
  } finally {
    await store.close();
  }
}

/**
 * Executes the run `request` on this worker and resolves with how it ended. Rejects only when it
 * could not start (the remote is unreachable, the base commit is missing): Restate retries it then.
 */
export async function executeClusterRun(
  request: ClusterRunRequest,
  context: WorkerContext,
  how: { firstExecution: boolean },
): Promise<ClusterRunResult> {
  const { repo } = context;
  const adwId = request.adw_id;
  const before = await readSessionRow(context.dbPath, adwId);
  const ended = before !== undefined && (before.status === "success" || before.status === "fail");
  // The first execution of a submission finding a session that ended: not a retry but a second
  // submission of the id (one Restate forgot): never its old outcome presented as this one's.
  if (ended && how.firstExecution)
    throw resubmissionRefused(
      adwId,
      `the trace already has run ${adwId} (${before.workflow}, ${before.status})`,
    );
  // An execution that finished but whose answer Restate did not get: the trace has the outcome.
  if (ended) return endedResult(context, before);
  const takingOver = before !== undefined;
  // Before reading what the run pushed: from here on, the attempt taken for dead writes nothing more.
  if (takingOver) {
    await claimRun(context, before);
    currentWorkerMetrics()?.failovers.inc();
  }
  await repo.fetch();
  const checkout = checkoutDir(context, adwId);
  await repo.checkoutFor(checkout, request.base_commit);
  const { workflow, config: runConfig } = await context.loadRun(checkout, request.workflow);
  const config: SssfConfig = { ...runConfig, dbPath: context.dbPath, sessionsDir: context.sessionsDir };
  const branch = before?.branch ?? runBranch(workflow.name, adwId);
  // What the run pushed before: its branch (commits), then its uncommitted work on top.
  const pushed = takingOver ? await repo.remoteRef(`refs/heads/${branch}`) : null;
  if (pushed !== null) await repo.fetchRef(`refs/heads/${branch}`);
  const wip = takingOver ? await repo.remoteRef(wipRef(adwId)) : null;
  if (wip !== null) await repo.fetchRef(wipRef(adwId));
  const worktree = worktreePath(config.dataDir, adwId);
  // The branch is pushed once it has a commit of the run's: a run that commits nothing leaves none.
  let lastHead: string = pushed ?? request.base_commit;
  let lastWip: string | null = wip;
  let runTrace: SessionTrace | undefined;
  // Another worker took the run over while this one was taken for dead: it stops, and keeps its hands off.
  let fencedBy: string | undefined;
  const isFenced = () => fencedBy !== undefined || runTrace?.fenced === true;
  const own = new AbortController();
  const signal = AbortSignal.any([context.signal, own.signal]);

  const host: RunHost = {
    ...(takingOver
      ? {
          takeOver: {
            reason: `interrupted: worker ${before.host ?? "?"} (pid ${before.pid ?? "?"}) stopped running it; worker ${context.id} takes it over`,
            // The closing event's payload names the previous owner (pid, host) from `from`.
            payload: takeOverPayload(context.id),
            from: { host: before.host, pid: before.pid },
          },
        }
      : {}),
    workspaceOpened: async (workspace, trace) => {
      runTrace = trace;
      trace.event({
        type: "log",
        name: `worker ${context.id} runs it in ${workspace.root}; its session files are in ${path.join(context.sessionsDir, adwId)} on that worker`,
        phaseId: null,
        payload: {
          worker: context.id,
          session_dir: path.join(context.sessionsDir, adwId),
          worktree: workspace.root,
        },
      });
      if (wip === null || workspace.worktree === null) return;
      await repo.restoreSnapshot(workspace.worktree, wip);
      trace.event({
        type: "log",
        name: `failover: the work of the last completed phase is back from ${wipRef(adwId)} (${wip.slice(0, 12)})`,
        phaseId: null,
        payload: { failover: true, wip, branch_head: pushed, worker: context.id },
      });
    },
    fenced: (holder) => {
      fencedBy = holder === null ? "nobody (the session is gone)" : ownerName(holder);
      const reason = `fenced: ${fencedBy} runs it now; worker ${context.id} stops its stale attempt and writes nothing more to the trace or the remote`;
      // Only the session's files get this (the trace refuses the attempt's records from now on).
      runTrace?.event({
        type: "log",
        name: reason,
        phaseId: null,
        ok: false,
        payload: { fenced: true, worker: context.id, holder },
      });
      own.abort(reason);
    },
    phaseCompleted: async (phase) => {
      currentWorkerMetrics()?.phaseEnded(phase);
      if (phase.status !== "success" && phase.status !== "fail") return;
      // Only an attempt the trace still takes pushes (the journal entry follows the push).
      if (isFenced() || (runTrace !== undefined && !(await runTrace.stillOwner()))) return;
      try {
        const { head, wip: now } = await repo.workState(
          worktree,
          `sssf ${adwId}: uncommitted work after ${phase.name}`,
        );
        await repo.push(worktree, {
          ...(head !== lastHead ? { branch } : {}),
          ...(now !== lastWip ? { ref: { name: wipRef(adwId), commit: now } } : {}),
        });
        lastHead = head;
        lastWip = now;
      } catch (error) {
        // The run goes on; only a failover before the next push would start further back.
        runTrace?.event({
          type: "log",
          name: `could not push the work of ${phase.name} to the shared remote: ${(error as Error).message}; a failover before the next push starts from the one before`,
          phaseId: phase.id,
          ok: false,
          payload: { worker: context.id, error: (error as Error).message },
        });
      }
    },
    ...(context.remoteAnswer === undefined ? {} : { remoteAnswer: context.remoteAnswer }),
    answerVia: context.answerVia,
  };

  const outcome = await runWorkflow({
    workflow,
    request: request.request,
    config,
    adwId,
    ...(request.agent === null ? {} : { agent: request.agent }),
    registry: context.registry,
    reporter: context.reporter,
    signal,
    yes: request.yes,
    ...(takingOver ? { resume: true } : { base: request.base_commit }),
    host,
  });
  if (isFenced()) {
    await repo.removeCheckout(checkout);
    return {
      adw_id: adwId,
      accepted: false,
      reason: `fenced: ${fencedBy ?? "another worker"} runs it now`,
      branch: null,
      head: null,
      wip_ref: null,
      worker: context.id,
    };
  }
  return finishRun(context, outcome, { worktree, branch, base: request.base_commit, lastWip, checkout });
}

/**
 * Pushes what the run left a last time: its branch when it has commits of the run's, its uncommitted
 * work as `refs/sssf/wip/<adw_id>` when there is some (the worktree goes with the checkout: the ref is
 * the only copy), else drops that ref; then removes the run's checkout from this worker.
 */
async function finishRun(
  context: WorkerContext,
  outcome: RunOutcome,
  where: { worktree: string; branch: string; base: string; lastWip: string | null; checkout: string },
): Promise<ClusterRunResult> {
  const { repo } = context;
  const adwId = outcome.adwId;
  const state = existsSync(where.worktree)
    ? await repo.workState(where.worktree, `sssf ${adwId}: uncommitted work the run left`)
    : null;
  const branch = state !== null && state.head !== where.base ? where.branch : null;
  const wip = state?.wip ?? null;
  await repo.push(state === null ? repo.clone : where.worktree, {
    ...(branch === null ? {} : { branch }),
    ...(wip !== where.lastWip ? { ref: { name: wipRef(adwId), commit: wip } } : {}),
  });
  await repo.removeCheckout(where.checkout);
  return {
    adw_id: adwId,
    accepted: outcome.accepted,
    reason: outcome.reason,
    branch,
    head: state?.head ?? null,
    wip_ref: wip === null ? null : wipRef(adwId),
    worker: context.id,
  };
}
