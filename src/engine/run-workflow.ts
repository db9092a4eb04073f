import { statSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import type { DurableRun } from "../api/durable-steps.js";
import { committedLinks } from "../boundary/write-boundary-links.js";
import { checkpointRef, dropWorkCheckpoints } from "../code/work-checkpoint.js";
import type { AgentConfig, SssfConfig } from "../config/config-types.js";
import { isSssfError, SssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import { openExport, otlpTarget, type SpanExport } from "../otel/open-export.js";
import type { Runtime } from "../runtimes/runtime.js";
import { checkAdwId, mintAdwId } from "../session/adw-id.js";
import { AgentSessions } from "../session/agent-session.js";
import { closeSessionAsInterrupted, endLeftoverProcesses } from "../session/reaper.js";
import { RecordFiles } from "../session/record-files.js";
import { type RunEnd, type RunReporter, silentReporter } from "../session/reporter.js";
import { ensureSessionDirs, type SessionDirs, sessionDirs } from "../session/session-dirs.js";
import { acquireSessionLock } from "../session/session-lock.js";
import { nowIso, SessionTrace } from "../session/session-trace.js";
import type { PhaseRow, SessionRow } from "../trace/events.js";
import { openTraceStore } from "../trace/open-store.js";
import { newSessionRow, rejoinedSessionRow } from "../trace/rows.js";
import type { TraceStore } from "../trace/store.js";
import { getSession, maxPhaseNumber, readSessionRow } from "../trace/store-queries.js";
import { displayTraceLocation } from "../trace/trace-location.js";
import { Tracer } from "../trace/tracer.js";
import { withRunMarker } from "../util/process-group.js";
import { registerSecretEnv } from "../util/secrets/redact.js";
import {
  announceWorkspace,
  planWorkspace,
  type RunWorkspace,
  workspaceColumns,
  workspaceConfig,
  workspaceExclude,
  workspaceStart,
} from "../workspace/run-workspace.js";
import { finishWorkspace } from "../workspace/run-workspace-finish.js";
import { WorkspaceOpening } from "../workspace/workspace-opening.js";
import { openDurableRun } from "./durable/open-durable-run.js";
import { checkResumable } from "./durable/resume-checks.js";
import type { RunRoots } from "./durable/run-roots.js";
import type { RunCheckpoints } from "./phase/phase-checkpoints.js";
import { raceAbort } from "./race-abort.js";
import { RunChanges } from "./run-changes.js";
import { checkRunRequest } from "./run-checks.js";
import { RunEngine } from "./run-engine.js";
import type { RunOutcome, RunWorkflowOptions } from "./run-workflow-options.js";

export type { RunOutcome, RunWorkflowOptions } from "./run-workflow-options.js";

function hasRecords(file: string): boolean {
  try {
    return statSync(file).size > 0;
  } catch {
    return false;
  }
}

/** The session on disk once its lock is held: where its files go and the trace it writes. */
interface OpenedSession {
  adwId: string;
  dirs: SessionDirs;
  db: TraceStore;
  tracer: Tracer;
  /** The session's row before this run, when it joins one. */
  existing: SessionRow | undefined;
}

/** Refuses a join whose files exist without the db's record: phase numbers would restart over them. */
function refuseJoinWithoutRecord(session: OpenedSession, config: SssfConfig): void {
  if (session.existing || !hasRecords(session.dirs.eventsFile)) return;
  throw new UsageError(
    `--adw-id ${session.adwId}: the session's files exist but ${displayTraceLocation(config.dbPath)} has no record of it; run "sssf db rebuild" first`,
    "--adw-id",
  );
}

/** The session's row as this run starts it: fresh, or the joined one running again. */
function startSessionRow(
  options: RunWorkflowOptions,
  session: OpenedSession,
  workspace: RunWorkspace,
): SessionRow {
  const columns = workspaceColumns(workspace);
  const patch = { workflow: options.workflow.name, request: options.request, ...columns };
  return session.existing
    ? rejoinedSessionRow(session.existing, patch)
    : newSessionRow({ adw_id: session.adwId, ...patch }, new Date());
}

/** Where the run's folders are, as the journal records them (docs/resume.md). */
function runRoots(config: SssfConfig, workspace: RunWorkspace, dirs: SessionDirs): RunRoots {
  return {
    run_root: workspace.root,
    worktree: workspace.worktree,
    checkout: workspace.checkout,
    session: dirs.root,
    sessions: config.sessionsDir,
    data_dir: config.dataDir,
  };
}

/**
 * Where checkpoints of the run's worktree are taken before its phases (docs/resume.md): its top level
 * and what they leave out. Null in place: the checkout holds the operator's own work too.
 */
function checkpointPlace(runConfig: SssfConfig, workspace: RunWorkspace): RunCheckpoints | null {
  if (workspace.mode !== "worktree" || workspace.worktree === null) return null;
  const exclude = workspaceExclude(runConfig, workspace).map((prefix) =>
    path.resolve(workspace.root, prefix),
  );
  return { top: workspace.worktree, exclude };
}

/** The run's engine, wired to its session, workspace and hooks. */
function createEngine(
  options: RunWorkflowOptions,
  session: OpenedSession,
  context: {
    trace: SessionTrace;
    workspace: RunWorkspace;
    resolveRuntime: (agent: AgentConfig) => Runtime;
    durable: DurableRun;
    previous: object | null;
    lastPhaseNumber: number;
    files: RecordFiles;
  },
): RunEngine {
  const { config } = options;
  const { adwId, dirs } = session;
  const { trace, workspace } = context;
  const runConfig = workspaceConfig(config, workspace);
  return new RunEngine({
    config: runConfig,
    workflow: options.workflow.name,
    request: options.request,
    adwId,
    dirs,
    trace,
    sessions: new AgentSessions({ agentMapFile: dirs.agentMap, trace, adwId }),
    reporter: options.reporter ?? silentReporter,
    signal: options.signal ?? new AbortController().signal,
    agentOverride: options.agent,
    bestOf: options.bestOf,
    resolveRuntime: context.resolveRuntime,
    lastPhaseNumber: context.lastPhaseNumber,
    lastEnvelope: context.previous,
    checkoutRoot: config.repoRoot,
    checkpoints: checkpointPlace(runConfig, workspace),
    changes: new RunChanges({
      root: runConfig.repoRoot,
      exclude: workspaceExclude(runConfig, workspace),
      ownsTree: workspace.mode === "worktree",
      startsAt: workspaceStart(workspace),
    }),
    yes: options.yes === true,
    sendHooks: options.sendHooks ?? [],
    durable: context.durable,
    files: context.files,
    ...(options.host === undefined ? {} : { host: options.host }),
  });
}

/**
 * Runs the workflow's code until `run.finish()`, an exception or the signal. Never throws: an
 * exception is the run's reason, traced as an `error` event unless a failed phase already traced it.
 */
async function runBody(
  options: RunWorkflowOptions,
  engine: RunEngine,
  trace: SessionTrace,
  signal: AbortSignal,
): Promise<{ accepted: boolean; reason: string }> {
  const { workflow } = options;
  try {
    await raceAbort(workflow.run(engine, options.request), signal);
    if (engine.outcome === null)
      throw new SssfError("internal", `workflow ${workflow.name} ended without run.finish()`);
    return engine.outcome;
  } catch (error) {
    const reason = isSssfError(error)
      ? error.message
      : `${(error as Error).name}: ${(error as Error).message}`;
    if (!engine.phases.some((p) => p.status === "fail" && p.error !== null)) {
      trace.event({
        type: "error",
        name: reason,
        phaseId: null,
        ok: false,
        payload: {
          error: reason,
          ...(isSssfError(error) ? { code: error.code } : { stack: (error as Error).stack }),
          // The terminal shows it in the banner.
          shown: [],
        },
      });
    }
    return { accepted: false, reason };
  }
}

/** Ends the session's row and trace with the outcome (committed when it resolves), and tells the reporter. */
async function finishSession(
  trace: SessionTrace,
  outcome: { accepted: boolean; reason: string },
  reporter: RunReporter,
  phases: PhaseRow[],
  end?: RunEnd,
): Promise<void> {
  const { accepted, reason } = outcome;
  const endedAt = new Date();
  trace.updateSession({
    status: accepted ? "success" : "fail",
    accepted: accepted ? 1 : 0,
    reason,
    ended_at: endedAt.toISOString(),
    duration_ms: endedAt.getTime() - Date.parse(trace.session.started_at),
  });
  trace.event({
    type: "log",
    name: `${accepted ? "accepted" : "not accepted"}: ${reason}`,
    phaseId: null,
    ok: accepted,
    payload: { accepted, reason, ended_at: nowIso() },
  });
  await trace.flush();
  reporter.finished(trace.session, phases, end);
}

/**
 * Runs one workflow in one session: validates before anything starts (bad input throws and nothing
 * is created), then mints or joins the session under its lock, runs the workflow, and always
 * finalizes the session — an exception anywhere ends it `fail` with the error traced.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<RunOutcome> {
  const { config } = options;
  // From here on, the secret-named values of the agents' and suites' env are redacted wherever text is kept.
  for (const { env } of [...config.agents, ...Object.values(config.quality)]) registerSecretEnv(env);
  // A bad OTLP endpoint is refused before anything exists (docs/observability.md).
  const otlp = otlpTarget(config.otlp);
  const minted = options.adwId === undefined ? mintAdwId() : undefined;
  const wantedFor = (adwId: string) => ({
    config,
    adwId,
    inPlace: options.inPlace === true,
    base: options.base,
    merge: options.merge === true,
    carryDirty: options.carryDirty === true,
    workflow: options.workflow.name,
  });
  // A new session's plan only reads git: it does so while the runtimes load. The request's own
  // problems still come first.
  const planning = minted === undefined ? null : planWorkspace({ ...wantedFor(minted), existing: undefined });
  planning?.catch(() => undefined); // awaited below
  // The OpenTelemetry packages (~0.4 s) load while git plans the workspace; never rejects.
  const exporting = openExport(otlp);
  const resolveRuntime = await checkRunRequest(options);

  const adwId = minted ?? checkAdwId(options.adwId as string);
  const wanted = wantedFor(adwId);
  const onRecord = minted === undefined ? await readSessionRow(config.dbPath, adwId) : undefined;
  let plan = await (planning ?? planWorkspace({ ...wanted, existing: onRecord }));
  const dirs = sessionDirs(config.sessionsDir, adwId);
  ensureSessionDirs(dirs);
  const releaseLock = acquireSessionLock(dirs.lockFile, adwId);
  const reporter = options.reporter ?? silentReporter;
  // A minted session's worktree is added while the trace opens: git works beside the main thread.
  const opening = new WorkspaceOpening(plan, minted !== undefined);
  let store: TraceStore | undefined;
  let tracer: Tracer | undefined;
  let spans: SpanExport | undefined;
  try {
    // Opening the trace holds the thread (the driver loads, the file opens): first let the opening's
    // steps up to `git worktree add` run, so git adds the worktree meanwhile instead of after it.
    if (minted !== undefined) await new Promise((resolve) => setImmediate(resolve));
    store = await openTraceStore(config.dbPath);
    spans = await exporting;
    const fenced = options.host?.fenced;
    tracer = new Tracer({
      store,
      eventsFile: dirs.eventsFile,
      onAppended: spans?.consume,
      ...(fenced === undefined
        ? {}
        : { fence: { adwId, owner: { host: hostname(), pid: process.pid }, onFenced: fenced } }),
    });
    const session: OpenedSession = {
      adwId,
      dirs,
      db: store,
      tracer,
      existing: await getSession(store, adwId),
    };
    refuseJoinWithoutRecord(session, config);
    const takeOver = options.host?.takeOver;
    if (options.resume === true) checkResumable(adwId, session.existing, config, takeOver !== undefined);
    // Holding the lock, a session still marked running is one whose sssf died: close what it left open.
    if (session.existing?.status === "running") {
      // A host that claimed the row already names itself there: the processes are the previous owner's.
      const existing = session.existing;
      const dead = { ...existing, ...takeOver?.from };
      await endLeftoverProcesses(store, dead);
      const write = tracer.write.bind(tracer);
      await closeSessionAsInterrupted(store, write, existing, {
        reason:
          takeOver?.reason ??
          `interrupted: the sssf that ran it (pid ${dead.pid ?? "unknown"}) ended without finalizing`,
        payload: {
          pid: dead.pid,
          host: dead.host,
          closed_by: `sssf pid ${process.pid}`,
          ...takeOver?.payload,
        },
      });
      await tracer.flush();
    }
    // Another process may have started this session between the first look and the lock.
    if ((session.existing === undefined) !== (onRecord === undefined))
      plan = await planWorkspace({ ...wanted, existing: session.existing });
    const workspace = await opening.open(plan);
    // The first boundary checkpoint lists the symlinks committed at the worktree's start: git lists
    // them while the session is set up, instead of after that checkpoint's `git status`.
    const start = workspaceStart(workspace);
    if (start !== undefined) void committedLinks(workspace.root, start);
    const trace = new SessionTrace(tracer, startSessionRow(options, session, workspace));
    reporter.sessionStarted(trace.session, dirs.root, session.existing !== undefined);
    announceWorkspace(workspace, { trace, reporter });
    await options.host?.workspaceOpened?.(workspace, trace);
    const durable = await openDurableRun(options, session, trace, runRoots(config, workspace, dirs));
    const previous = durable.startPrevious;
    const files = RecordFiles.toldTo(trace, reporter);
    const engine = createEngine(options, session, {
      trace,
      workspace,
      resolveRuntime,
      durable: options.durable?.(durable) ?? durable,
      previous,
      files,
      lastPhaseNumber: await maxPhaseNumber(store, adwId),
    });
    trace.event({
      type: "log",
      name: `${options.resume === true ? "resumed" : session.existing ? "joined" : "started"} ${options.workflow.name}`,
      phaseId: null,
      payload: { request: options.request, pid: process.pid },
    });

    const outcome = await withRunMarker(adwId, () =>
      runBody(options, engine, trace, options.signal ?? new AbortController().signal),
    );
    // The prompts and envelopes are on disk before the run ends.
    await files.settled();
    const { merge, branch, commits } = await finishWorkspace(engine, workspace, outcome.accepted, {
      trace,
      reporter,
    });
    // An accepted run is never resumed: its checkpoints are of no more use.
    if (outcome.accepted && workspace.worktree !== null)
      await dropWorkCheckpoints(workspace.checkout, checkpointRef(adwId));
    await finishSession(trace, outcome, reporter, engine.phases, {
      branchRemoved: branch === "removed",
      commits,
    });
    return {
      adwId,
      accepted: outcome.accepted,
      reason: outcome.reason,
      exitCode: outcome.accepted && (merge === null || merge.merged) ? 0 : 1,
      sessionDir: dirs.root,
      session: { ...trace.session },
      phases: engine.phases.map((p) => ({ ...p })),
      workspace,
      merge,
      branch,
      commits,
    };
  } catch (error) {
    // A run that never got to its worktree leaves none: the one added ahead goes.
    await opening.abandon();
    throw error;
  } finally {
    try {
      await tracer?.close();
    } finally {
      await (spans ?? (await exporting))?.shutdown();
      await store?.close();
      releaseLock();
    }
  }
}
