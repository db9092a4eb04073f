/**
 * One run on a worker (docs/cluster.md): the body of the Restate workflow's `run` handler. Restate
 * places it, and runs it again on another worker when this one dies; each execution is an sssf
 * attempt. The first starts the session; a later one finds the session in the shared trace and
 * resumes it: the phases an earlier attempt completed are answered from the trace's journal (their
 * agents get no new request) and the rest runs live, from the run's last pushed work.
 */

import { existsSync, rmSync } from "node:fs";
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
import { RunLoader } from "./run-loader.js";
import { probeKindFromEnv, type WorkTreeProbe, workTreeProbe } from "./work-tree-probe.js";
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

/** Each worker's warm cache of workflows and configs, by its repository. */
const loaders = new WeakMap<WorkerRepo, RunLoader>();
function loaderOf(context: WorkerContext): RunLoader {
  let loader = loaders.get(context.repo);
  if (loader === undefined) {
    loader = new RunLoader(context.repo, (checkout, workflow) => context.loadRun(checkout, workflow));
    loaders.set(context.repo, loader);
  }
  return loader;
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
  // The warm clone has the base commit unless it was pushed since the last fetch.
  if (!(await repo.hasCommit(request.base_commit))) await repo.fetch();
  const checkout = checkoutDir(context, adwId);
  await repo.checkoutFor(checkout, request.base_commit);
  const { workflow, config: runConfig } = await loaderOf(context).loadFor(
    request.base_commit,
    request.workflow,
    checkout,
  );
  const config: SssfConfig = { ...runConfig, dbPath: context.dbPath, sessionsDir: context.sessionsDir };
  const branch = before?.branch ?? runBranch(workflow.name, adwId);
  // What the run pushed before: its branch (commits), then its uncommitted work on top; only these
  // two refs are fetched (one listing, one fetch).
  const refs = takingOver ? await repo.fetchRefs([`refs/heads/${branch}`, wipRef(adwId)]) : new Map();
  const pushed = refs.get(`refs/heads/${branch}`) ?? null;
  const wip = refs.get(wipRef(adwId)) ?? null;
  const worktree = worktreePath(config.dataDir, adwId);
  // What the remote holds for the run, so a phase pushes only what changed: the branch's head (it is
  // pushed once it has a commit of the run's), the wip commit, and the tree of the whole work.
  const remote: PushedWork = {
    head: pushed ?? request.base_commit,
    wip,
    tree: await repo.treeOf(wip ?? pushed ?? request.base_commit),
  };
  // The run's own index file: how its worktree stands after each phase (work-tree-probe.ts).
  const probe = workTreeProbe(probeKindFromEnv(), worktree, `${checkout}.wip-index`);
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
      if (isFenced()) return;
      try {
        const now = await probe.read();
        // Nothing a failover reads changed (no commit, the same files): nothing to push.
        if (now.head === remote.head && now.tree === remote.tree) return;
        // Only an attempt the trace still takes pushes. The push is awaited here, before the engine
        // journals the phase: a phase the journal calls completed has its work on the remote, and a
        // worker killed before the push ends has the phase run again by the next one (its work is not
        // on the remote, so neither is its journal entry). Pushing in the background would let the
        // journal run ahead of the remote, and a failover then replay a phase whose files are lost.
        if (runTrace !== undefined && !(await runTrace.stillOwner())) return;
        await pushWork(repo, worktree, { branch, adwId, why: `after ${phase.name}` }, now, remote);
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
    await removeRun(repo, checkout);
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
  return finishRun(context, outcome, {
    worktree,
    branch,
    base: request.base_commit,
    checkout,
    remote,
    probe,
  });
}

/** What the shared remote holds of a run: its branch's head, its wip commit, the tree of its work. */
interface PushedWork {
  head: string;
  wip: string | null;
  tree: string;
}

/**
 * Pushes the run's work `now` where it differs from `remote` (updated once the push succeeded), in one
 * atomic push: the branch when its head moved, the wip ref when the uncommitted work changed (deleted
 * when nothing is left uncommitted).
 */
async function pushWork(
  repo: WorkerRepo,
  worktree: string,
  run: { branch: string; adwId: string; why: string },
  now: { head: string; headTree: string; tree: string },
  remote: PushedWork,
): Promise<void> {
  // Called only when something changed, so an uncommitted tree is new work: a new wip commit.
  const wip =
    now.tree === now.headTree
      ? null
      : await repo.wipCommit(worktree, now.tree, now.head, `sssf ${run.adwId}: uncommitted work ${run.why}`);
  await repo.push(worktree, {
    ...(now.head !== remote.head ? { branch: run.branch } : {}),
    ...(wip !== remote.wip ? { ref: { name: wipRef(run.adwId), commit: wip } } : {}),
  });
  remote.head = now.head;
  remote.wip = wip;
  remote.tree = now.tree;
}

/** Removes a run's checkout and its wip index from this worker. */
async function removeRun(repo: WorkerRepo, checkout: string): Promise<void> {
  rmSync(`${checkout}.wip-index`, { force: true });
  await repo.removeCheckout(checkout);
}

/**
 * Pushes what the run left a last time, where it differs from what the remote has: its branch when it
 * has commits of the run's, its uncommitted work as `refs/sssf/wip/<adw_id>` when there is some (the
 * worktree goes with the checkout: the ref is the only copy), else drops that ref; then removes the
 * run's checkout from this worker.
 */
async function finishRun(
  context: WorkerContext,
  outcome: RunOutcome,
  where: {
    worktree: string;
    branch: string;
    base: string;
    checkout: string;
    remote: PushedWork;
    probe: WorkTreeProbe;
  },
): Promise<ClusterRunResult> {
  const { repo } = context;
  const adwId = outcome.adwId;
  const { remote } = where;
  const left = existsSync(where.worktree);
  if (left) {
    const now = await where.probe.read();
    if (now.head !== remote.head || now.tree !== remote.tree)
      await pushWork(repo, where.worktree, { branch: where.branch, adwId, why: "the run left" }, now, remote);
  } else if (remote.wip !== null) {
    await repo.push(repo.clone, { ref: { name: wipRef(adwId), commit: null } });
    remote.wip = null;
  }
  await removeRun(repo, where.checkout);
  const committed = left && remote.head !== where.base;
  return {
    adw_id: adwId,
    accepted: outcome.accepted,
    reason: outcome.reason,
    branch: committed ? where.branch : null,
    head: left ? remote.head : null,
    wip_ref: remote.wip === null ? null : wipRef(adwId),
    worker: context.id,
  };
}
