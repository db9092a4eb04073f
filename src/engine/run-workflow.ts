import { existsSync, statSync } from "node:fs";
import type Database from "better-sqlite3";
import type { Workflow } from "../api/run-api.js";
import type { SendHook } from "../api/send-hook.js";
import { type AgentConfig, findAgent, type SssfConfig } from "../config/config-types.js";
import { isSssfError, SssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import type { RuntimeRegistry } from "../runtimes/registry.js";
import type { Runtime } from "../runtimes/runtime.js";
import { checkAdwId, mintAdwId } from "../session/adw-id.js";
import { AgentSessions } from "../session/agent-session.js";
import { type RunReporter, silentReporter } from "../session/reporter.js";
import { ensureSessionDirs, sessionDirs } from "../session/session-dirs.js";
import { acquireSessionLock } from "../session/session-lock.js";
import { nowIso, SessionTrace } from "../session/session-trace.js";
import { openTraceDb } from "../trace/database.js";
import type { PhaseRow, SessionRow } from "../trace/events.js";
import { getSession, maxPhaseNumber } from "../trace/queries.js";
import { Tracer } from "../trace/tracer.js";
import { terminateAllProcessGroups } from "../util/process-group.js";
import {
  announceWorkspace,
  openWorkspace,
  planWorkspace,
  type RunWorkspace,
  workspaceColumns,
  workspaceConfig,
  workspaceExclude,
} from "../workspace/run-workspace.js";
import { mergeIfAccepted } from "../workspace/run-workspace-merge.js";
import type { FastForwardResult } from "../workspace/worktree-merge.js";
import { RunChanges } from "./run-changes.js";
import { RunEngine } from "./run-engine.js";

export interface RunWorkflowOptions {
  workflow: Workflow;
  request: string;
  config: SssfConfig;
  /** Join (or name) a session; a fresh 8-hex id is minted otherwise. */
  adwId?: string | undefined;
  /** `--agent`: the agent for workflows that take one (prompt). */
  agent?: string | undefined;
  reporter?: RunReporter;
  /** Aborting interrupts the run: agents' process groups are killed and the session ends `fail`. */
  signal?: AbortSignal;
  /** The runtimes agents may use; the composition root (CLI, library entry) passes the built-ins. */
  registry: RuntimeRegistry;
  /** Runtimes registered over `registry` for this run only (in-process agents for tests and benchmarks). */
  runtimes?: Runtime[];
  /** `--in-place`: work in the checkout itself instead of a worktree of its own (default false). */
  inPlace?: boolean;
  /** `--base`: the commit-ish a new run's branch starts from (default HEAD). */
  base?: string | undefined;
  /** `--merge`: fast-forward the base branch to the run's branch once the run is accepted. */
  merge?: boolean;
  /** `--yes`: engineer phases' questions (`phase.ask`) are approved at once instead of waiting. */
  yes?: boolean;
  /** Watchers opened around every agent send of the run, after the write boundary (docs/send-hooks.md). */
  sendHooks?: readonly SendHook[];
}

export interface RunOutcome {
  adwId: string;
  accepted: boolean;
  reason: string;
  /** 0 accepted (and merged, with `merge`), 1 failed, not accepted, or its merge refused. */
  exitCode: 0 | 1;
  sessionDir: string;
  session: SessionRow;
  phases: PhaseRow[];
  /** Where the run worked: its worktree and branch, or the checkout. */
  workspace: RunWorkspace;
  /** What `merge` did; null without it or when the run was not accepted. */
  merge: FastForwardResult | null;
}

/** Where a missing built-in agent comes from. */
function rosterHint(name: string): string {
  if (name.startsWith("sdd-")) return '; "sssf init --sdd" writes the sdd agents';
  if (["planner", "builder", "scout", "reviewer", "documenter"].includes(name))
    return '; "sssf init" writes the default roster';
  return "";
}

function agentsNeeded(options: RunWorkflowOptions): AgentConfig[] {
  const { config, workflow } = options;
  const names = [...workflow.agents];
  if (options.agent !== undefined) names.push(options.agent);
  if (names.length === 0 && config.agents[0]) names.push(config.agents[0].name);
  return names.map((name) => {
    const agent = findAgent(config, name);
    if (!agent) {
      const known = config.agents.map((a) => a.name).join(", ");
      const origin = options.agent === name ? "--agent" : `workflow ${workflow.name}`;
      throw new UsageError(
        `${origin}: no agent named "${name}" in ${config.file ?? "the config"} (agents: ${known})${rosterHint(name)}`,
        "--agent",
      );
    }
    return agent;
  });
}

/** A workflow that needs a quality suite the config lacks must fail before anything runs. */
function checkSuites(workflow: Workflow, config: SssfConfig): void {
  const defined = Object.keys(config.quality);
  const where = config.file ?? "the config";
  for (const suite of workflow.suites ?? []) {
    if (suite === "*" ? defined.length > 0 : defined.includes(suite)) continue;
    const need = suite === "*" ? "at least one quality suite" : `the quality suite "${suite}"`;
    throw new SssfError(
      "config_invalid",
      `workflow ${workflow.name} needs ${need}, but ${where} defines ${defined.length ? defined.join(", ") : "none"}: add it under quality: (e.g. ${suite === "*" ? "test" : suite}: { command: [npm, ${suite === "*" || suite === "test" ? "test" : `run, ${suite}`}] })`,
      { exitCode: 2 },
    );
  }
}

function unknownRuntime(agent: AgentConfig, registry: RuntimeRegistry): SssfError {
  return new SssfError(
    "runtime_unknown",
    `agent ${agent.name}: coding_agent "${agent.codingAgent}" has no runtime in this build of sssf (available: ${registry.ids().join(", ")})`,
    { exitCode: 2 },
  );
}

/**
 * Loads the runtime of every agent the run may call before anything is created: the workflow's own
 * agents must have one; an owner named later (`run.agent(…, { owner })`) fails its phase if it has none.
 */
async function resolveRuntimes(options: RunWorkflowOptions): Promise<(agent: AgentConfig) => Runtime> {
  const registry = options.runtimes ? options.registry.with(options.runtimes) : options.registry;
  const needed = agentsNeeded(options);
  const byAgent = new Map<string, Runtime>();
  for (const agent of [...needed, ...options.config.agents]) {
    if (byAgent.has(agent.name)) continue;
    const runtime = await registry.resolve(agent.codingAgent);
    if (runtime) byAgent.set(agent.name, runtime);
    else if (needed.includes(agent)) throw unknownRuntime(agent, registry);
  }
  return (agent) => {
    const runtime = byAgent.get(agent.name);
    if (!runtime) throw unknownRuntime(agent, registry);
    return runtime;
  };
}

function hasRecords(file: string): boolean {
  try {
    return statSync(file).size > 0;
  } catch {
    return false;
  }
}

/** The session's row before the lock is taken (flags are checked before anything is created). */
function sessionOnRecord(dbPath: string, adwId: string): SessionRow | undefined {
  if (!existsSync(dbPath)) return undefined;
  const db = openTraceDb(dbPath, { readonly: true });
  try {
    return getSession(db, adwId);
  } finally {
    db.close();
  }
}

function latestValidEnvelope(db: Database.Database, adwId: string): object | null {
  const row = db
    .prepare(
      "SELECT envelope_json FROM envelopes WHERE adw_id = ? AND valid = 1 ORDER BY created_at DESC, id DESC LIMIT 1",
    )
    .get(adwId) as { envelope_json: string } | undefined;
  return row ? (JSON.parse(row.envelope_json) as object) : null;
}

/**
 * Runs one workflow in one session: validates before anything starts (bad input throws and nothing
 * is created), then mints or joins the session under its lock, runs the workflow, and always
 * finalizes the session — an exception anywhere ends it `fail` with the error traced.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<RunOutcome> {
  const { config, workflow } = options;
  if (options.request.trim() === "")
    throw new UsageError("the prompt is empty: pass a request or a prompt file");
  const resolveRuntime = await resolveRuntimes(options);
  checkSuites(workflow, config);

  const adwId = options.adwId === undefined ? mintAdwId() : checkAdwId(options.adwId);
  const wanted = {
    config,
    adwId,
    inPlace: options.inPlace === true,
    base: options.base,
    merge: options.merge === true,
  };
  const onRecord = options.adwId === undefined ? undefined : sessionOnRecord(config.dbPath, adwId);
  let plan = await planWorkspace({ ...wanted, existing: onRecord });
  const dirs = sessionDirs(config.sessionsDir, adwId);
  ensureSessionDirs(dirs);
  const releaseLock = acquireSessionLock(dirs.lockFile, adwId);
  const reporter = options.reporter ?? silentReporter;
  const signal = options.signal ?? new AbortController().signal;
  let db: Database.Database | undefined;
  let tracer: Tracer | undefined;
  try {
    db = openTraceDb(config.dbPath);
    tracer = new Tracer({ db, eventsFile: dirs.eventsFile });
    const existing = getSession(db, adwId);
    if (!existing && hasRecords(dirs.eventsFile)) {
      // Joining without the db's record would restart phase numbers over the files' history.
      throw new UsageError(
        `--adw-id ${adwId}: the session's files exist but ${config.dbPath} has no record of it; run "sssf db rebuild" first`,
        "--adw-id",
      );
    }
    // Another process may have started this session between the first look and the lock.
    if ((existing === undefined) !== (onRecord === undefined))
      plan = await planWorkspace({ ...wanted, existing });
    const workspace = await openWorkspace(plan);
    const runConfig = workspaceConfig(config, workspace);
    const startedAt = new Date();
    const session: SessionRow = existing
      ? {
          ...existing,
          workflow: workflow.name,
          request: options.request,
          status: "running",
          accepted: null,
          reason: null,
          ended_at: null,
          duration_ms: null,
          ...workspaceColumns(workspace),
        }
      : {
          adw_id: adwId,
          workflow: workflow.name,
          request: options.request,
          status: "running",
          accepted: null,
          reason: null,
          started_at: startedAt.toISOString(),
          ended_at: null,
          duration_ms: null,
          input_tokens: 0,
          output_tokens: 0,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          cost_usd: 0,
          archived: 0,
          ...workspaceColumns(workspace),
        };
    const trace = new SessionTrace(tracer, session);
    reporter.sessionStarted(session, dirs.root, existing !== undefined);
    announceWorkspace(workspace, { trace, reporter });
    const engine = new RunEngine({
      config: runConfig,
      workflow: workflow.name,
      request: options.request,
      adwId,
      dirs,
      trace,
      sessions: new AgentSessions({ agentMapFile: dirs.agentMap, trace, adwId }),
      reporter,
      signal,
      agentOverride: options.agent,
      resolveRuntime,
      lastPhaseNumber: maxPhaseNumber(db, adwId),
      lastEnvelope: existing ? latestValidEnvelope(db, adwId) : null,
      checkoutRoot: config.repoRoot,
      changes: new RunChanges({
        root: runConfig.repoRoot,
        exclude: workspaceExclude(runConfig, workspace),
        ownsTree: workspace.mode === "worktree",
      }),
      yes: options.yes === true,
      sendHooks: options.sendHooks ?? [],
    });
    trace.event({
      type: "log",
      name: `${existing ? "joined" : "started"} ${workflow.name}`,
      phaseId: null,
      payload: { request: options.request, pid: process.pid },
    });

    let accepted = false;
    let reason: string;
    try {
      await raceAbort(workflow.run(engine, options.request), signal);
      if (engine.outcome === null)
        throw new SssfError("internal", `workflow ${workflow.name} ended without run.finish()`);
      accepted = engine.outcome.accepted;
      reason = engine.outcome.reason;
    } catch (error) {
      reason = isSssfError(error) ? error.message : `${(error as Error).name}: ${(error as Error).message}`;
      if (!engine.phases.some((p) => p.status === "fail" && p.error !== null)) {
        trace.event({
          type: "error",
          name: reason,
          phaseId: null,
          ok: false,
          payload: {
            error: reason,
            ...(isSssfError(error) ? { code: error.code } : { stack: (error as Error).stack }),
          },
        });
      }
    }
    const merge = await mergeIfAccepted(engine, workspace, accepted, { trace, reporter });
    const endedAt = new Date();
    trace.updateSession({
      status: accepted ? "success" : "fail",
      accepted: accepted ? 1 : 0,
      reason,
      ended_at: endedAt.toISOString(),
      duration_ms: endedAt.getTime() - Date.parse(session.started_at),
    });
    trace.event({
      type: "log",
      name: `${accepted ? "accepted" : "not accepted"}: ${reason}`,
      phaseId: null,
      ok: accepted,
      payload: { accepted, reason, ended_at: nowIso() },
    });
    tracer.flush();
    reporter.finished(trace.session, engine.phases);
    return {
      adwId,
      accepted,
      reason,
      exitCode: accepted && (merge === null || merge.merged) ? 0 : 1,
      sessionDir: dirs.root,
      session: { ...trace.session },
      phases: engine.phases.map((p) => ({ ...p })),
      workspace,
      merge,
    };
  } finally {
    tracer?.close();
    db?.close();
    releaseLock();
  }
}

/** How long an interrupted workflow gets to let its phases record their end before the run finalizes. */
const SETTLE_AFTER_ABORT_MS = 2000;

/**
 * Resolves with the workflow, or rejects once `signal` aborts, every agent process group is gone,
 * and the workflow has settled (at most SETTLE_AFTER_ABORT_MS), so no phase writes to a closed trace.
 */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(interrupted(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      terminateAllProcessGroups()
        .then(() => settledWithin(work, SETTLE_AFTER_ABORT_MS))
        .then(() => reject(interrupted(signal)), reject);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? interrupted(signal) : error);
      },
    );
  });
}

/** Resolves when `work` settles either way, or after `ms`. Never rejects. */
function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}

function interrupted(signal: AbortSignal): SssfError {
  return new SssfError(
    "interrupted",
    `interrupted by ${typeof signal.reason === "string" ? signal.reason : "abort"}`,
  );
}
