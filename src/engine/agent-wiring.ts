/**
 * What the run hands each agent call: the agent's folders and box for the whole run (its unboxed note
 * said once), its write boundary, and one call's context with its gates' view and its send hooks.
 */
import type { DurablePhase } from "../api/durable-steps.js";
import type { SendHook } from "../api/send-hook.js";
import { type WriteBoundary, writeBoundaryFor } from "../boundary/write-boundary.js";
import { ownChanges } from "../boundary/write-boundary-attribution.js";
import { writeBoundaryHook } from "../boundary/write-boundary-hook.js";
import { BoundarySends } from "../boundary/write-boundary-sends.js";
import type { AgentConfig, SssfConfig } from "../config/config-types.js";
import type { Gate, GateContext, PathChange } from "../gates/gate.js";
import type { Runtime } from "../runtimes/runtime.js";
import type { AgentSandbox } from "../sandbox/resolve-sandbox.js";
import type { AgentSessions } from "../session/agent-session.js";
import type { RunReporter } from "../session/reporter.js";
import { agentDirs, ensureAgentDirs, type SessionDirs } from "../session/session-dirs.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { PhaseRow } from "../trace/events.js";
import { agentSandboxFor, sandboxNotes } from "./agent-sandbox.js";
import type { AgentCallContext, PhaseCallContext } from "./call-context.js";
import { runSuitePhase, startChangeTracking, suiteLogPath } from "./code-support.js";
import { collectNamedPaths } from "./send/named-paths-hook.js";
import { sandboxRefusalsHook } from "./send/sandbox-refusals-hook.js";

/** What the wiring needs of the run. */
export interface AgentWiringRun {
  adwId: string;
  config: SssfConfig;
  repoRoot: string;
  checkoutRoot: string;
  contextHandoffDir: string;
  dirs: SessionDirs;
  trace: SessionTrace;
  reporter: RunReporter;
  signal: AbortSignal;
  sessions: AgentSessions;
  sendHooks: readonly SendHook[] | undefined;
  /** True while phases run side by side. */
  inParallel: () => boolean;
  /** The agent's folder in the session, by name (default: its name); a best-of attempt has its own. */
  agentDirName?: (agent: string) => string;
  /** Say nothing about the sandbox (a best-of attempt's wiring: the run's said it). */
  quiet?: boolean;
}

export class AgentWiring {
  /** The sends of every agent of the run, so a boundary tells concurrent agents apart. */
  private readonly sends = new BoundarySends();
  private readonly boundaries = new Map<string, WriteBoundary>();
  private readonly contexts = new Map<string, AgentCallContext>();
  private unboxedNoted = false;

  constructor(private readonly run: AgentWiringRun) {}

  /** The agent's context for the whole run (its folders and its box), made on its first call. */
  contextOf(agent: AgentConfig, runtime: Runtime): AgentCallContext {
    let context = this.contexts.get(agent.name);
    if (!context) {
      const dirs = agentDirs(this.run.dirs, this.run.agentDirName?.(agent.name) ?? agent.name, runtime.id);
      ensureAgentDirs(dirs);
      const sandbox = agentSandboxFor(this.run.config, agent, runtime, dirs, {
        workTree: this.run.repoRoot,
        checkoutRoot: this.run.checkoutRoot,
        contextHandoffDir: this.run.contextHandoffDir,
      });
      context = { config: agent, runtime, dirs, sandbox };
      if (this.run.quiet !== true) this.noteSandbox(agent.name, sandbox);
      this.contexts.set(agent.name, context);
    }
    return context;
  }

  /** Says once per run that agents run unboxed (and why), and once per missing `allow_write` path. */
  private noteSandbox(agent: string, sandbox: AgentSandbox): void {
    const notes = sandboxNotes(agent, sandbox, this.unboxedNoted);
    if (!sandbox.boxed) this.unboxedNoted = true;
    for (const note of notes) {
      this.run.trace.event({
        type: "log",
        name: note.message,
        phaseId: null,
        agent,
        ok: false,
        payload: { ...note.payload, shown: [`! ${note.message}`] },
      });
      this.run.reporter.log(`! ${note.message}`);
    }
  }

  private boundaryOf(agent: AgentConfig): WriteBoundary {
    let boundary = this.boundaries.get(agent.name);
    if (!boundary) {
      boundary = writeBoundaryFor(
        this.run.config,
        agent,
        this.run.dirs.root,
        this.sends,
        this.run.checkoutRoot,
      );
      this.boundaries.set(agent.name, boundary);
    }
    return boundary;
  }

  /**
   * One call's context: its session, its gates' view of the run, and its send hooks — the path
   * collector, the agent's write boundary, then the run's own hooks.
   */
  phaseCallContext(
    row: PhaseRow,
    agent: AgentConfig,
    gates: readonly Gate<never>[] | undefined,
    retries: number | undefined,
    durable: DurablePhase,
    lastEnvelope: object | null,
  ): PhaseCallContext {
    const tracking = startChangeTracking(
      this.run.config,
      durable.replays === null && (gates ?? []).some((g) => g.usesPhaseChanges),
    );
    const boundary = this.boundaryOf(agent);
    // Beside other phases, a diff gate counts only this agent's paths (docs/parallel-phases.md).
    const besideOthers = this.run.inParallel();
    const named = collectNamedPaths(this.run.repoRoot);
    const gateContext: GateContext = {
      repoRoot: this.run.repoRoot,
      adwId: this.run.adwId,
      phaseName: row.name,
      contextHandoffDir: this.run.contextHandoffDir,
      phaseChanges: async (): Promise<PathChange[]> => {
        const changes = await tracking.changes();
        return besideOthers ? ownChanges(changes, boundary.judge, named.files) : changes;
      },
      runSuite: (suite) =>
        runSuitePhase(this.run.config, suite, this.run.signal, suiteLogPath(this.run.dirs.root, row, suite)),
    };
    const sessions = this.run.sessions;
    return {
      row,
      // Resolved on first use: a replayed call never sends, so it never touches the agent's session.
      get session() {
        return sessions.resolve(agent, row.id);
      },
      durable,
      retries: retries ?? this.run.config.limits.retries,
      lastEnvelope,
      gateContext,
      hooks: [named.hook, writeBoundaryHook(boundary), sandboxRefusalsHook, ...(this.run.sendHooks ?? [])],
    };
  }
}
