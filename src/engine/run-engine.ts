import {
  type DurablePhase,
  type DurableRun,
  type PhaseCheckpoint,
  type PhaseIdentity,
  ReplayDiverged,
} from "../api/durable-steps.js";
import type {
  AgentPhase,
  AgentPhaseOptions,
  CodePhase,
  CodePhaseOptions,
  EngineerPhase,
  Finished,
  FinishOptions,
  PhaseOptions,
  Run,
} from "../api/run-api.js";
import type { SendHook } from "../api/send-hook.js";
import { type AskContext, approveCommandFlags, askEngineer } from "../approval/engineer-ask.js";
import { type WriteBoundary, writeBoundaryFor } from "../boundary/write-boundary.js";
import { ownChanges } from "../boundary/write-boundary-attribution.js";
import { writeBoundaryHook } from "../boundary/write-boundary-hook.js";
import { BoundarySends } from "../boundary/write-boundary-sends.js";
import {
  checkpointRef,
  hasCommit,
  restoreWorkCheckpoint,
  takeWorkCheckpoint,
} from "../code/work-checkpoint.js";
import { type AgentConfig, findAgent, type SssfConfig } from "../config/config-types.js";
import type { EnvelopeOf, OutputType } from "../envelope/output-type.js";
import { SssfError } from "../errors/sssf-error.js";
import type { Gate, GateContext, PathChange } from "../gates/gate.js";
import type { Runtime } from "../runtimes/runtime.js";
import type { AgentSandbox } from "../sandbox/resolve-sandbox.js";
import type { AgentSessions } from "../session/agent-session.js";
import type { RecordFiles } from "../session/record-files.js";
import type { RunReporter } from "../session/reporter.js";
import { agentDirs, ensureAgentDirs, type SessionDirs } from "../session/session-dirs.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { PhaseKind, PhaseRow } from "../trace/events.js";
import { newPhaseRow } from "../trace/rows.js";
import { agentSandboxFor, sandboxNotes } from "./agent-sandbox.js";
import { RunBudget } from "./budget.js";
import { callAgent } from "./call-agent.js";
import type { AgentCallContext, PhaseCallContext, RunCallContext } from "./call-context.js";
import { codePhaseHandle } from "./code-phase.js";
import { runSuitePhase, startChangeTracking, suiteLogPath } from "./code-support.js";
import { stepKey } from "./durable/step-journal.js";
import type { RunChanges } from "./run-changes.js";
import type { RunHost } from "./run-host.js";
import { RunScope } from "./run-scope.js";
import { collectNamedPaths } from "./send/named-paths-hook.js";
import { sandboxRefusalsHook } from "./send/sandbox-refusals-hook.js";
import { type PhaseLifecycle, tracePhase } from "./trace-phase.js";

/** Where the checkpoints before a run's phases are taken: its worktree's top level, and what they leave out. */
export interface RunCheckpoints {
  top: string;
  /** sssf's own paths and the linked dependency folders (absolute). */
  exclude: string[];
}

export interface RunEngineOptions {
  config: SssfConfig;
  workflow: string;
  request: string;
  adwId: string;
  dirs: SessionDirs;
  trace: SessionTrace;
  sessions: AgentSessions;
  reporter: RunReporter;
  signal: AbortSignal;
  agentOverride: string | undefined;
  resolveRuntime: (agent: AgentConfig) => Runtime;
  /** Phase numbers continue after this one (joins). */
  lastPhaseNumber: number;
  /** Re-hydrated on joins: the last accepted envelope of the session. */
  lastEnvelope: object | null;
  /** The operator's checkout (equal to `config.repoRoot` for an in-place run). */
  checkoutRoot: string;
  /** The run's own changes since its start or its last commit. */
  changes: RunChanges;
  /** Where checkpoints are taken before agent and code phases; null in place (docs/resume.md). */
  checkpoints: RunCheckpoints | null;
  /** `--yes`: every `ask` of an engineer phase is approved at once (default false). */
  yes?: boolean;
  /** Watchers opened around every agent send of the run, after the write boundary. */
  sendHooks?: readonly SendHook[];
  /** Where phases are journaled and, on a resume, answered from (docs/resume.md). */
  durable: DurableRun;
  /** What hosts the run beyond this process (a cluster worker); none locally. */
  host?: RunHost;
  /** Where the prompts as sent and the accepted envelopes are written, off the main thread. */
  files: RecordFiles;
}

/** The `Run` a workflow drives: numbers phases, traces them, and owns the outcome. */
export class RunEngine implements Run {
  readonly adwId: string;
  readonly workflow: string;
  readonly request: string;
  readonly repoRoot: string;
  readonly checkoutRoot: string;
  readonly contextHandoffDir: string;
  readonly config: SssfConfig;
  readonly agentOverride: string | undefined;
  readonly phases: PhaseRow[] = [];
  outcome: { accepted: boolean; reason: string } | null = null;
  private phaseNumber: number;
  /** Phases this attempt started, the journal's positions. */
  private position = 0;
  /** Parallel branches, their default `previous`, and which agent runs what. */
  private readonly scope: RunScope;
  /** Every agent's sends, so concurrent boundaries tell each other's writes apart. */
  private readonly sends = new BoundarySends();
  /** Code phases that ran to the end but whose result is a failure (a failing suite), with why. */
  private readonly softFailures = new Map<string, string>();
  private readonly options: RunEngineOptions;
  /** One write boundary per agent, kept for the run so blobs stored once are not stored again. */
  private readonly boundaries = new Map<string, WriteBoundary>();
  /** How a phase is written, ended and told. */
  private readonly lifecycle: PhaseLifecycle;
  /** What every call of the run shares. */
  private readonly callRun: RunCallContext;
  /** Each agent's runtime and folders, made on its first phase. */
  private readonly agentContexts = new Map<string, AgentCallContext>();
  /** The run has said once that its agents are not boxed. */
  private unboxedNoted = false;

  constructor(options: RunEngineOptions) {
    this.options = options;
    this.adwId = options.adwId;
    this.workflow = options.workflow;
    this.request = options.request;
    this.config = options.config;
    this.repoRoot = options.config.repoRoot;
    this.checkoutRoot = options.checkoutRoot;
    this.contextHandoffDir = options.dirs.contextHandoff;
    this.agentOverride = options.agentOverride;
    this.phaseNumber = options.lastPhaseNumber;
    this.scope = new RunScope(options.lastEnvelope);
    this.lifecycle = {
      trace: options.trace,
      reporter: options.reporter,
      softFailure: (phaseId) => this.softFailures.get(phaseId),
    };
    this.callRun = {
      adwId: options.adwId,
      trace: options.trace,
      sessions: options.sessions,
      repoRoot: this.repoRoot,
      contextHandoffDir: this.contextHandoffDir,
      reporter: options.reporter,
      signal: options.signal,
      jsonFixAttempts: options.config.limits.jsonFixAttempts,
      maxResultBytes: options.config.limits.maxResultBytes,
      budget: new RunBudget(options.config),
      files: options.files,
    };
  }

  /** The last accepted envelope, the default `previous`; inside a parallel branch, that branch's. */
  get lastEnvelope(): object | null {
    return this.scope.lastEnvelope;
  }

  set lastEnvelope(envelope: object | null) {
    this.scope.lastEnvelope = envelope;
  }

  private get trace(): SessionTrace {
    return this.options.trace;
  }

  private throwIfAborted(): void {
    const { signal } = this.options;
    if (signal.aborted)
      throw new SssfError("interrupted", `run interrupted (${String(signal.reason ?? "signal")})`);
  }

  private logger(phase: PhaseRow) {
    return (message: string, details?: Record<string, unknown>) => {
      this.trace.event({ type: "log", name: message, phaseId: phase.id, payload: details ?? {} });
    };
  }

  /**
   * Runs one phase as a durable unit: answered whole from the journal when an earlier attempt completed
   * the same phase with the same inputs (no agent called, no suite run, no commit made), else live.
   */
  private async runPhase<R>(
    kind: PhaseKind,
    name: string,
    owner: string,
    options: PhaseOptions,
    body: (row: PhaseRow, durable: DurablePhase, position: number) => R | Promise<R>,
    claim?: (row: PhaseRow) => () => void,
  ): Promise<R> {
    this.throwIfAborted();
    const { durable: run } = this.options;
    const identity: PhaseIdentity = {
      workflow: this.workflow,
      position: ++this.position,
      name,
      kind,
      owner,
      previous: this.lastEnvelope,
    };
    let durable = run.phase(identity);
    if (durable.replays !== null) {
      const replayed = await this.replayPhase(durable, durable.replays, identity.position, body);
      if (replayed.done) return replayed.value as R;
      run.diverge(identity, replayed.why);
      durable = run.phase(identity);
    }
    const number = ++this.phaseNumber;
    const row = newPhaseRow({
      adwId: this.adwId,
      number,
      name,
      kind,
      owner,
      description: options.description,
      startedAt: new Date(),
    });
    this.phases.push(row);
    durable.begin(row);
    // Claimed before the first await (the checkpoint): a sibling phase started meanwhile is refused.
    const release = claim?.(row);
    const result = await tracePhase(this.lifecycle, row, () =>
      this.scope.inPhase(row.id, async () => {
        if (kind !== "engineer") await this.checkpointBefore(row, durable, identity.position);
        return body(row, durable, identity.position);
      }),
    ).finally(release);
    // A host keeps the phase's work first: a journaled phase is one whose work another host finds.
    await this.options.host?.phaseCompleted?.(row);
    await durable.completed(row);
    return result;
  }

  /** A line for the trace and the terminal, about the phase `row`. */
  private note(row: PhaseRow, message: string, ok: boolean, payload: Record<string, unknown>): void {
    const line = `${ok ? "" : "! "}${message}`;
    this.trace.event({
      type: "log",
      name: message,
      phaseId: row.id,
      ok,
      payload: { ...payload, shown: [line] },
    });
    this.options.reporter.log(line, row);
  }

  /**
   * Before a live agent or code phase: puts the worktree back to the checkpoint an interrupted
   * attempt took before the same phase (a resume), then takes this attempt's checkpoint and journals
   * it. In place nothing is put back or taken: the checkout holds the operator's own work too.
   */
  private async checkpointBefore(row: PhaseRow, durable: DurablePhase, position: number): Promise<void> {
    const place = this.options.checkpoints;
    if (place === null) {
      if (durable.rerun !== null)
        this.note(
          row,
          `resume: ${row.name} runs again on the checkout as the interrupted attempt left it: an in-place run's checkout holds your own work too, so nothing is put back (docs/resume.md)`,
          false,
          { in_place: true, position },
        );
      await durable.checkpointed(null);
      return;
    }
    if (durable.rerun !== null) await this.rollBack(row, durable.rerun.checkpoint, place);
    let taken: Awaited<ReturnType<typeof takeWorkCheckpoint>>;
    try {
      taken = await takeWorkCheckpoint(place.top, {
        ref: checkpointRef(this.adwId),
        exclude: place.exclude,
        message: `sssf ${this.adwId}: checkpoint before ${row.name} (phase ${row.number}, position ${position})`,
      });
    } catch (error) {
      this.note(
        row,
        `no checkpoint before ${row.name}: ${(error as Error).message}; a resume after a crash in it would re-run it on what it leaves`,
        false,
        { checkpoint: null, position },
      );
      await durable.checkpointed(null);
      return;
    }
    await durable.checkpointed({ ...taken, parallel: this.scope.inParallel });
  }

  /** Puts the worktree back to `checkpoint` for the re-run of an interrupted phase, or says why not. */
  private async rollBack(
    row: PhaseRow,
    checkpoint: PhaseCheckpoint | null,
    place: RunCheckpoints,
  ): Promise<void> {
    const why = (reason: string) =>
      this.note(
        row,
        `resume: ${row.name} runs again on the worktree as the interrupted attempt left it: ${reason}`,
        false,
        {
          checkpoint,
          restored: false,
        },
      );
    if (checkpoint === null) return why("that attempt took no checkpoint before it");
    if (checkpoint.parallel)
      return why("it ran beside other phases, whose work in progress its checkpoint holds too");
    if (!(await hasCommit(place.top, checkpoint.commit)))
      return why(`its checkpoint ${checkpoint.commit.slice(0, 12)} is not in this repository`);
    try {
      const restored = await restoreWorkCheckpoint(place.top, checkpoint, {
        ref: checkpointRef(this.adwId),
        exclude: place.exclude,
        message: `sssf ${this.adwId}: what the interrupted attempt left in ${row.name}`,
      });
      await this.options.changes.restart();
      const count = restored.paths.length;
      const head = restored.headMoved ? `, HEAD back at ${checkpoint.head.slice(0, 12)}` : "";
      const kept = restored.kept === null ? "" : `; what it left is kept as ${restored.kept.slice(0, 12)}`;
      this.note(
        row,
        `resume: the worktree is back at the checkpoint taken before ${row.name} (${count} path${count === 1 ? "" : "s"} put back${head})${kept}`,
        true,
        {
          checkpoint,
          restored: true,
          paths: restored.paths,
          head_moved: restored.headMoved,
          kept: restored.kept,
        },
      );
    } catch (error) {
      why(
        `putting back its checkpoint ${checkpoint.commit.slice(0, 12)} failed: ${(error as Error).message}`,
      );
    }
  }

  /**
   * Re-runs a completed phase's body against its journal: every step answers from it. Done when the
   * body returned after using exactly the journaled steps; otherwise (a step that differs, a missing or
   * extra step, a throw) the run's state is put back and the phase must run live.
   */
  private async replayPhase<R>(
    durable: DurablePhase,
    original: PhaseRow,
    position: number,
    body: (row: PhaseRow, durable: DurablePhase, position: number) => R | Promise<R>,
  ): Promise<{ done: true; value: R } | { done: false; why: string }> {
    const row: PhaseRow = { ...original, replayed_at: new Date().toISOString() };
    const before = this.lastEnvelope;
    let value: R;
    try {
      durable.begin(row);
      value = await this.scope.inPhase(row.id, () => body(row, durable, position));
      await durable.completed(row);
    } catch (error) {
      this.throwIfAborted();
      this.lastEnvelope = before;
      const why =
        error instanceof ReplayDiverged
          ? error.why
          : `${row.name}: its code threw while replaying (${(error as Error).message})`;
      return { done: false, why };
    }
    this.phases.push(row);
    this.trace.writePhase(row);
    this.trace.event({
      type: "log",
      name: `replayed ${String(row.number).padStart(2, "0")} ${row.name} from the journal`,
      phaseId: row.id,
      agent: row.kind === "agent" ? row.owner : null,
      payload: { replayed: true, status: row.status, attempt: this.options.durable.attempt },
    });
    this.options.reporter.phaseReplayed?.(row);
    return { done: true, value };
  }

  engineer<R>(
    name: string,
    options: PhaseOptions,
    body: (phase: EngineerPhase) => R | Promise<R>,
  ): Promise<R> {
    return this.runPhase("engineer", name, "engineer", options, (row, durable, position) => {
      let asked = 0;
      return body({
        name,
        number: row.number,
        log: this.logger(row),
        ask: (question, details) =>
          durable.step("ask", { question, details: details ?? null }, () =>
            askEngineer(
              {
                adwId: this.adwId,
                phase: row,
                trace: this.trace,
                reporter: this.options.reporter,
                signal: this.options.signal,
                sessionRoot: this.options.dirs.root,
                yes: this.options.yes === true,
                commandFlags: approveCommandFlags(this.config, this.checkoutRoot, process.cwd()),
                ...this.remoteAnswerOf(row, position, ++asked),
              },
              question,
              details,
            ),
          ),
      });
    });
  }

  /**
   * The host's second door for the engineer's answer to the `n`th question of the phase at
   * `position`, keyed like its journal step, if the host has one.
   */
  private remoteAnswerOf(
    row: PhaseRow,
    position: number,
    n: number,
  ): Pick<AskContext, "remoteAnswer" | "answerVia"> {
    const host = this.options.host;
    if (host?.remoteAnswer === undefined) return {};
    const remoteAnswer = host.remoteAnswer.bind(host);
    const key = stepKey(position, row.name, "ask", n);
    return {
      remoteAnswer: (signal) => remoteAnswer({ adwId: this.adwId, key, question: row.name }, signal),
      // Not `*_key`: the trace redacts a field named like a secret.
      answerVia: { ...host.answerVia, answer_step: key },
    };
  }

  agent<R>(name: string, options: AgentPhaseOptions, body: (phase: AgentPhase) => Promise<R>): Promise<R> {
    const agent = findAgent(this.config, options.owner);
    if (!agent) {
      throw new SssfError(
        "agent_unknown",
        `phase ${name}: owner "${options.owner}" is not an agent in ${this.config.file ?? "the config"}`,
      );
    }
    const runtime = this.options.resolveRuntime(agent);
    // Refused before the phase starts: the sibling holding the agent keeps its session to itself.
    this.scope.assertAgentFree(agent.name, name);
    return this.runPhase(
      "agent",
      name,
      agent.name,
      options,
      (row, durable) => {
        const agentContext = this.agentContextOf(agent, runtime);
        const handle: AgentPhase = {
          name,
          number: row.number,
          owner: agent.name,
          log: this.logger(row),
          call: async <T extends OutputType>(
            callOptions: Parameters<AgentPhase["call"]>[0] & { outputType: T },
          ) => {
            const envelope = await this.scope.whileCalling(agent.name, name, () =>
              callAgent(
                {
                  run: this.callRun,
                  agent: agentContext,
                  phase: {
                    ...this.phaseCallContext(row, agent, callOptions.gates, options.retries, durable),
                    budget: options.budget,
                  },
                },
                callOptions,
              ),
            );
            this.lastEnvelope = envelope;
            return envelope as EnvelopeOf<T>;
          },
        };
        return body(handle);
      },
      (row) => this.scope.claimAgent(agent.name, row),
    );
  }

  private agentContextOf(agent: AgentConfig, runtime: Runtime): AgentCallContext {
    let context = this.agentContexts.get(agent.name);
    if (!context) {
      const dirs = agentDirs(this.options.dirs, agent.name, runtime.id);
      ensureAgentDirs(dirs);
      const sandbox = agentSandboxFor(this.config, agent, runtime, dirs, {
        workTree: this.repoRoot,
        checkoutRoot: this.checkoutRoot,
        contextHandoffDir: this.contextHandoffDir,
      });
      context = { config: agent, runtime, dirs, sandbox };
      this.noteSandbox(agent.name, sandbox);
      this.agentContexts.set(agent.name, context);
    }
    return context;
  }

  /** Says once per run that agents run unboxed (and why), and once per missing `allow_write` path. */
  private noteSandbox(agent: string, sandbox: AgentSandbox): void {
    const notes = sandboxNotes(agent, sandbox, this.unboxedNoted);
    if (!sandbox.boxed) this.unboxedNoted = true;
    for (const note of notes) {
      this.trace.event({
        type: "log",
        name: note.message,
        phaseId: null,
        agent,
        ok: false,
        payload: { ...note.payload, shown: [`! ${note.message}`] },
      });
      this.options.reporter.log(`! ${note.message}`);
    }
  }

  private boundaryOf(agent: AgentConfig): WriteBoundary {
    let boundary = this.boundaries.get(agent.name);
    if (!boundary) {
      boundary = writeBoundaryFor(this.config, agent, this.options.dirs.root, this.sends, this.checkoutRoot);
      this.boundaries.set(agent.name, boundary);
    }
    return boundary;
  }

  /**
   * One call's context: its session, its gates' view of the run, and its send hooks — the path
   * collector, the agent's write boundary, then the run's own hooks.
   */
  private phaseCallContext(
    row: PhaseRow,
    agent: AgentConfig,
    gates: readonly Gate<never>[] | undefined,
    retries: number | undefined,
    durable: DurablePhase,
  ): PhaseCallContext {
    const tracking = startChangeTracking(
      this.config,
      durable.replays === null && (gates ?? []).some((g) => g.usesPhaseChanges),
    );
    const boundary = this.boundaryOf(agent);
    // Beside other phases, a diff gate counts only this agent's paths (docs/parallel-phases.md).
    const besideOthers = this.scope.inParallel;
    const named = collectNamedPaths(this.repoRoot);
    const gateContext: GateContext = {
      repoRoot: this.repoRoot,
      adwId: this.adwId,
      phaseName: row.name,
      contextHandoffDir: this.contextHandoffDir,
      phaseChanges: async (): Promise<PathChange[]> => {
        const changes = await tracking.changes();
        return besideOthers ? ownChanges(changes, boundary.judge, named.files) : changes;
      },
      runSuite: (suite) =>
        runSuitePhase(
          this.config,
          suite,
          this.options.signal,
          suiteLogPath(this.options.dirs.root, row, suite),
        ),
    };
    const sessions = this.options.sessions;
    return {
      row,
      // Resolved on first use: a replayed call never sends, so it never touches the agent's session.
      get session() {
        return sessions.resolve(agent, row.id);
      },
      durable,
      retries: retries ?? this.config.limits.retries,
      lastEnvelope: this.lastEnvelope,
      gateContext,
      hooks: [
        named.hook,
        writeBoundaryHook(boundary),
        sandboxRefusalsHook,
        ...(this.options.sendHooks ?? []),
      ],
    };
  }

  code<R>(name: string, options: CodePhaseOptions, body: (phase: CodePhase) => R | Promise<R>): Promise<R> {
    return this.runPhase("code", name, options.owner ?? "code", options, (row, durable) =>
      body(
        codePhaseHandle({
          row,
          durable,
          config: this.config,
          trace: this.trace,
          signal: this.options.signal,
          changes: this.options.changes,
          sessionRoot: this.options.dirs.root,
          checkoutRoot: this.checkoutRoot,
          reporter: this.options.reporter,
          log: this.logger(row),
          setLastEnvelope: (envelope) => {
            this.lastEnvelope = envelope;
          },
          markFailed: (why) => this.softFailures.set(row.id, why),
          files: this.options.files,
        }),
      ),
    );
  }

  async parallel<T extends readonly (() => Promise<unknown>)[]>(
    branches: T,
  ): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
    this.throwIfAborted();
    // Every branch settles before the join reports, so no phase is left running behind a rejection.
    return (await this.scope.parallel(branches)) as { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };
  }

  finish(options: FinishOptions): Finished {
    const reason = options.reason ?? (options.accepted ? "accepted" : "not accepted");
    this.outcome = { accepted: options.accepted, reason };
    return { accepted: options.accepted, reason } as unknown as Finished;
  }
}
