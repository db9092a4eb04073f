/**
 * The context of each attempt of a best-of call: the phase's, moved to the attempt's worktree.
 */
import type { AgentPhase, AgentPhaseOptions } from "../../api/run-api.js";
import type { AgentConfig, SssfConfig } from "../../config/config-types.js";
import type { Runtime } from "../../runtimes/runtime.js";
import { newAgentSessionId } from "../../session/agent-map.js";
import { nowIso } from "../../session/session-trace.js";
import { AgentWiring, type AgentWiringRun } from "../agent-wiring.js";
import type { CallContext, RunCallContext } from "../call-context.js";
import { runSuiteAt, suiteLogPath } from "../code-support.js";
import type { RunCheckpoints } from "../phase/phase-checkpoints.js";
import type { BestOfHost } from "./best-of-call.js";

/** What the run hands a best-of call. */
export interface AttemptRun {
  adwId: string;
  config: SssfConfig;
  wiringRun: AgentWiringRun;
  callRun: RunCallContext;
  place: RunCheckpoints | null;
  checkoutRoot: string;
  sessionRoot: string;
  /** The session's `agent_map.json`. */
  agentMapFile: string;
}

/**
 * What a best-of call needs of the run: each attempt's context is the phase's, moved to the
 * attempt's worktree (its own wiring: box, write boundary, gates' view, agent folder) in a fresh
 * session, with the attempt's signal and its tallying trace.
 */
export function attemptHost(
  run: AttemptRun,
  base: CallContext,
  call: {
    agent: AgentConfig;
    runtime: Runtime;
    options: AgentPhaseOptions;
    gates: Parameters<AgentPhase["call"]>[0]["gates"];
  },
): BestOfHost {
  const { agent, runtime, options } = call;
  const row = base.phase.row;
  // A crashed attempt's ladder notes are the phase's, not one attempt's: each attempt starts at rung 1.
  const durable = { ...base.phase.durable, rerun: null };
  return {
    base,
    adwId: run.adwId,
    place: run.place,
    checkoutRoot: run.checkoutRoot,
    sessionRoot: run.sessionRoot,
    agentMapFile: run.agentMapFile,
    maxBestOf: run.config.limits.maxBestOf,
    contextOf: (k, root, signal, trace) => {
      const wiring = new AgentWiring({
        ...run.wiringRun,
        config: { ...run.config, repoRoot: root },
        repoRoot: root,
        trace,
        signal,
        inParallel: () => false,
        agentDirName: (name) => `${name}/attempt-${k}`,
        quiet: true,
      });
      const phase = wiring.phaseCallContext(
        row,
        agent,
        call.gates,
        options.retries,
        durable,
        base.phase.lastEnvelope,
      );
      return {
        run: { ...run.callRun, repoRoot: root, signal, trace },
        agent: wiring.contextOf(agent, runtime),
        phase: {
          row,
          session: {
            // Its own agent_map.json key (its folder's name): a later phase of the agent resumes
            // the agent's own session, never an attempt's, whose files live in the attempt's folder.
            agent: `${agent.name}/attempt-${k}`,
            sessionId: newAgentSessionId(run.adwId, agent.name),
            nativeSessionId: undefined,
            model: agent.model,
            codingAgent: agent.codingAgent,
            sends: 0,
            createdAt: nowIso(),
          },
          durable,
          retries: phase.retries,
          lastEnvelope: phase.lastEnvelope,
          gateContext: phase.gateContext,
          hooks: phase.hooks,
          budget: options.budget,
        },
      };
    },
    runSuite: async (suite, root, k, signal) => {
      const logPath = suiteLogPath(run.sessionRoot, row, `${suite}.attempt-${k}`);
      const result = await runSuiteAt(run.config, suite, root, { signal, logPath });
      const last = result.outputTail.trim().split("\n").at(-1) ?? "";
      return {
        passed: result.passed,
        summary: result.passed
          ? `${suite} passed`
          : `${suite} failed (exit ${String(result.exitCode)})${last === "" ? "" : `: ${last}`}`,
      };
    },
  };
}
