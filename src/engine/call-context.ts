import type { DurablePhase } from "../api/durable-steps.js";
import type { PhaseBudget } from "../api/run-api.js";
import type { SendHook } from "../api/send-hook.js";
import type { AgentConfig } from "../config/config-types.js";
import type { GateContext } from "../gates/gate.js";
import type { Runtime } from "../runtimes/runtime.js";
import type { AgentSandbox } from "../sandbox/resolve-sandbox.js";
import type { AgentSessionState, AgentSessions } from "../session/agent-session.js";
import type { RecordFiles } from "../session/record-files.js";
import type { RunReporter } from "../session/reporter.js";
import type { AgentDirs } from "../session/session-dirs.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { PhaseRow } from "../trace/events.js";
import type { RunBudget } from "./budget.js";

/** What every call of a run shares: made once per run. */
export interface RunCallContext {
  adwId: string;
  trace: SessionTrace;
  sessions: AgentSessions;
  /** The run root agents work in (their worktree, or the checkout). */
  repoRoot: string;
  contextHandoffDir: string;
  reporter: RunReporter;
  /** Aborts every send of the run. */
  signal: AbortSignal;
  /** `limits.json_fix_attempts`: corrections of an invalid envelope per round. */
  jsonFixAttempts: number;
  /** `limits.max_result_bytes`: a longer reply is cut to its tail (where the envelope is) before parsing. */
  maxResultBytes: number;
  /** The run's budgets (`limits.max_cost_usd|max_tokens|max_run_seconds`), its clock and its prices. */
  budget: RunBudget;
  /** Where the prompts as sent and the accepted envelopes are written, off the main thread. */
  files: RecordFiles;
  /** `limits.rate_limit_wait_seconds` in ms (absent: the default), for `rate-limit-send.ts`. */
  rateLimitWaitMs?: number | undefined;
  /** Another agent's context, for a `{ agent }` fallback (undefined: not in the roster). */
  agentContext?: ((name: string) => AgentCallContext | undefined) | undefined;
}

/** One agent of the run: made once per agent. */
export interface AgentCallContext {
  config: AgentConfig;
  runtime: Runtime;
  dirs: AgentDirs;
  /** The OS sandbox this agent's sends run in, or why they run unboxed. */
  sandbox: AgentSandbox;
}

/** One call in one phase. */
export interface PhaseCallContext {
  row: PhaseRow;
  /** The conversation this call continues. */
  readonly session: AgentSessionState;
  /** The phase's durable steps: the call is one. */
  durable: DurablePhase;
  /** Gate corrections allowed. */
  retries: number;
  /** The run's last accepted envelope, the default `previous`. */
  lastEnvelope: object | null;
  gateContext: GateContext;
  /** Watchers opened around every send of the call (write boundary, path collector…), in order. */
  hooks: readonly SendHook[];
  /** The workflow's budget for this phase (`AgentPhaseOptions.budget`), over the owner's `limits`. */
  budget?: PhaseBudget | undefined;
}

/** The agent call's context, split by lifetime. */
export interface CallContext {
  run: RunCallContext;
  agent: AgentCallContext;
  phase: PhaseCallContext;
}
