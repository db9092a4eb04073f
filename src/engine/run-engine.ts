import type { DurablePhase, PhaseIdentity } from "../api/durable-steps.js";
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
import { approveCommandFlags } from "../approval/engineer-ask.js";
import { findAgent, type SssfConfig } from "../config/config-types.js";
import type { EnvelopeOf, OutputType } from "../envelope/output-type.js";
import { SssfError } from "../errors/sssf-error.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { PhaseKind, PhaseRow } from "../trace/events.js";
import { newPhaseRow } from "../trace/rows.js";
import { AgentWiring, type AgentWiringRun } from "./agent-wiring.js";
import { type AttemptRun, attemptHost } from "./best-of/attempt-host.js";
import { callBestOf } from "./best-of/best-of-call.js";
import { RunBudget } from "./budget.js";
import { callAgent } from "./call-agent.js";
import type { CallContext, RunCallContext } from "./call-context.js";
import { codePhaseHandle } from "./phase/code-phase.js";
import { engineerPhaseHandle } from "./phase/engineer-phase.js";
import { type CheckpointContext, checkpointBefore } from "./phase/phase-checkpoints.js";
import { type ReplayContext, replayPhase } from "./phase/phase-replay.js";
import { type PhaseLifecycle, tracePhase } from "./phase/trace-phase.js";
import type { RunEngineOptions } from "./run-engine-options.js";
import { RunScope } from "./run-scope.js";

/** Where the checkpoints before a run's phases are taken: its worktree's top level, and what they leave out. */

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
  readonly bestOf: number | undefined;
  readonly phases: PhaseRow[] = [];
  outcome: { accepted: boolean; reason: string } | null = null;
  private phaseNumber: number;
  /** Phases this attempt started, the journal's positions. */
  private position = 0;
  /** Parallel branches, their default `previous`, and which agent runs what. */
  private readonly scope: RunScope;
  /** Code phases that ran to the end but whose result is a failure (a failing suite), with why. */
  private readonly softFailures = new Map<string, string>();
  private readonly options: RunEngineOptions;
  /** How a phase is written, ended and told. */
  private readonly lifecycle: PhaseLifecycle;
  /** What every call of the run shares. */
  private readonly callRun: RunCallContext;
  /** Each agent's folders, box and write boundary, and each call's context. */
  private readonly agents: AgentWiring;
  /** What the agents' wiring was made with; a best-of attempt's wiring differs in its worktree. */
  private readonly wiringRun: AgentWiringRun;

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
    this.bestOf = options.bestOf;
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
      rateLimitWaitMs: options.config.limits.rateLimitWaitMs,
      agentContext: (name) => {
        const agent = findAgent(options.config, name);
        return agent === undefined ? undefined : this.agents.contextOf(agent, options.resolveRuntime(agent));
      },
    };
    this.wiringRun = {
      adwId: options.adwId,
      config: options.config,
      repoRoot: this.repoRoot,
      checkoutRoot: this.checkoutRoot,
      contextHandoffDir: this.contextHandoffDir,
      dirs: options.dirs,
      trace: options.trace,
      reporter: options.reporter,
      signal: options.signal,
      sessions: options.sessions,
      sendHooks: options.sendHooks,
      inParallel: () => this.scope.inParallel,
    };
    this.agents = new AgentWiring(this.wiringRun);
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
        if (kind !== "engineer")
          await checkpointBefore(this.checkpointContext(), row, durable, identity.position);
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

  /** What taking and putting back a phase's checkpoint needs of this run. */
  private checkpointContext(): CheckpointContext {
    return {
      adwId: this.adwId,
      place: this.options.checkpoints,
      inParallel: () => this.scope.inParallel,
      restartChanges: () => this.options.changes.restart(),
      note: (row, message, ok, payload) => this.note(row, message, ok, payload),
    };
  }

  /** Re-runs a completed phase's body against its journal (`replayPhase`), then records it as replayed. */
  private async replayPhase<R>(
    durable: DurablePhase,
    original: PhaseRow,
    position: number,
    body: (row: PhaseRow, durable: DurablePhase, position: number) => R | Promise<R>,
  ): Promise<{ done: true; value: R } | { done: false; why: string }> {
    const replayed = await replayPhase(this.replayContext(), durable, original, position, body);
    if (!replayed.done) return replayed;
    const { row } = replayed;
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
    return { done: true, value: replayed.value };
  }

  private replayContext(): ReplayContext {
    return {
      inPhase: (phaseId, fn) => this.scope.inPhase(phaseId, fn),
      lastEnvelope: () => this.lastEnvelope,
      restoreLastEnvelope: (envelope) => {
        this.lastEnvelope = envelope;
      },
      throwIfAborted: () => this.throwIfAborted(),
    };
  }

  engineer<R>(
    name: string,
    options: PhaseOptions,
    body: (phase: EngineerPhase) => R | Promise<R>,
  ): Promise<R> {
    return this.runPhase("engineer", name, "engineer", options, (row, durable, position) =>
      body(
        engineerPhaseHandle({
          row,
          durable,
          position,
          adwId: this.adwId,
          trace: this.trace,
          reporter: this.options.reporter,
          signal: this.options.signal,
          sessionRoot: this.options.dirs.root,
          yes: this.options.yes === true,
          commandFlags: approveCommandFlags(this.config, this.checkoutRoot, process.cwd()),
          host: this.options.host,
          log: this.logger(row),
        }),
      ),
    );
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
        const agentContext = this.agents.contextOf(agent, runtime);
        const handle: AgentPhase = {
          name,
          number: row.number,
          owner: agent.name,
          log: this.logger(row),
          call: async <T extends OutputType>(
            callOptions: Parameters<AgentPhase["call"]>[0] & { outputType: T },
          ) => {
            const context: CallContext = {
              run: this.callRun,
              agent: agentContext,
              phase: {
                ...this.agents.phaseCallContext(
                  row,
                  agent,
                  callOptions.gates,
                  options.retries,
                  durable,
                  this.lastEnvelope,
                ),
                budget: options.budget,
              },
            };
            const { bestOf } = options;
            const envelope = await this.scope.whileCalling(agent.name, name, () =>
              bestOf === undefined
                ? callAgent(context, callOptions)
                : callBestOf(
                    attemptHost(this.attemptRun(), context, {
                      agent,
                      runtime,
                      options,
                      gates: callOptions.gates,
                    }),
                    bestOf,
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

  /** What a best-of attempt's context is made from (src/engine/best-of/attempt-host.ts). */
  private attemptRun(): AttemptRun {
    return {
      adwId: this.adwId,
      config: this.config,
      wiringRun: this.wiringRun,
      callRun: this.callRun,
      place: this.options.checkpoints,
      checkoutRoot: this.checkoutRoot,
      sessionRoot: this.options.dirs.root,
      agentMapFile: this.options.dirs.agentMap,
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
