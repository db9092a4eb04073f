/**
 * One attempt of a best-of call: its own worktree at the checkpoint, its own agent session, the call
 * with its gates, then the attempt's diff against the checkpoint (kept in the session whatever the
 * outcome) and, when it passed, the workflow's check in its worktree.
 */
import path from "node:path";
import type { FinishedAttempt } from "../../api/durable-steps.js";
import type { BestOfAttempt, BestOfOptions, CallOptions } from "../../api/run-api.js";
import type { EnvelopeOf, OutputType } from "../../envelope/output-type.js";
import { PhaseFailedError } from "../../errors/phase-failed-error.js";
import type { Usage } from "../../runtimes/runtime.js";
import type { SessionTrace } from "../../session/session-trace.js";
import type { EnvelopeRow, GateResultRow } from "../../trace/events.js";
import { addAttemptWorktree, attemptChanges, writeAttemptDiff } from "../../workspace/attempt-worktree.js";
import type { GitRepo } from "../../workspace/worktree.js";
import { liveCall, type PreparedCall } from "../call-agent.js";
import type { CallContext } from "../call-context.js";
import type { CallProgress } from "../send/send-until-valid.js";

/** What an attempt's sends left in the trace: counted as they are written. */
export interface AttemptTally {
  envelopeIds: string[];
  /** The last report of each gate (a correction's later round replaces an earlier one). */
  gates: Map<string, { gate: string; ok: boolean; violations: string[] }>;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  /** The envelope row the call accepted: marked accepted only if the attempt wins. */
  accepted: EnvelopeRow | null;
}

/** An attempt as it ended: journaled when it finished, not when it was stopped. */
export interface AttemptResult extends FinishedAttempt {
  status: "passed" | "failed" | "stopped";
  /** Set when a budget stopped it: the whole phase fails with this. */
  budget?: string;
  /** The accepted envelope row (live attempts only). */
  acceptedRow?: EnvelopeRow | null;
}

/** What every attempt of one call shares. */
export interface AttemptPlan<T extends OutputType> {
  call: string;
  /** The run's trace; each attempt writes through a tallying view of it. */
  trace: SessionTrace;
  options: CallOptions<T>;
  prepared: PreparedCall<T>;
  bestOf: BestOfOptions;
  repo: GitRepo;
  checkoutTop: string;
  /** The checkpoint commit every attempt starts from. */
  checkpoint: string;
  /** sssf's own paths, left out of an attempt's diff (absolute, or relative to a worktree's top). */
  exclude: string[];
  /** The session folder: diffs go to `attempts/` there. */
  sessionRoot: string;
  /** `attempts/<NN>-<phase>-<k>.diff`. */
  diffName: (attempt: number) => string;
  /** Where attempt `k`'s worktree goes. */
  worktreeOf: (attempt: number) => string;
  /** The context of attempt `k`: its worktree, its session, its signal, its tallying trace. */
  contextOf: (attempt: number, root: string, signal: AbortSignal, trace: SessionTrace) => CallContext;
  /** Runs a quality suite in `root` for the check. */
  runSuite: (
    suite: string,
    root: string,
    attempt: number,
    signal: AbortSignal,
  ) => Promise<{ passed: boolean; summary: string }>;
  /** Hands out the next envelope number, one sequence over every attempt. */
  progress: () => CallProgress;
}

/** The trace as attempt `tally` sees it: every write goes through, and what it spent is counted. */
export function tallyingTrace(trace: SessionTrace, tally: AttemptTally): SessionTrace {
  return new Proxy(trace, {
    get(target, property) {
      if (property === "envelope")
        return (row: Parameters<SessionTrace["envelope"]>[0]) => {
          const written = target.envelope(row);
          tally.envelopeIds.push(written.id);
          return written;
        };
      if (property === "acceptEnvelope")
        return (row: EnvelopeRow) => {
          tally.accepted = row;
        };
      if (property === "gateResult")
        return (row: Omit<GateResultRow, "id" | "adw_id" | "created_at">) => {
          const written = target.gateResult(row);
          const violations = JSON.parse(written.violations) as string[];
          tally.gates.set(written.gate, { gate: written.gate, ok: written.ok === 1, violations });
          return written;
        };
      if (property === "addPhaseUsage")
        return (row: Parameters<SessionTrace["addPhaseUsage"]>[0], usage: Usage, context: number | null) => {
          tally.costUsd += usage.costUsd;
          tally.inputTokens += usage.inputTokens;
          tally.outputTokens += usage.outputTokens;
          target.addPhaseUsage(row, usage, context);
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A progress whose `attempt` takes the next number of `counter` whenever the call moves it on. */
export function sharedProgress(counter: { n: number }): CallProgress {
  let mine = 0;
  const progress = { system: "", message: "", reason: "initial" } as CallProgress;
  Object.defineProperty(progress, "attempt", {
    enumerable: true,
    get: () => mine,
    set: (value: number) => {
      mine = value > mine ? ++counter.n : value;
    },
  });
  return progress;
}

const budgetReason = (reason: string): boolean => /^budget (exceeded|exhausted)/.test(reason);

/**
 * Runs attempt `k` to its end. Resolves with its result whatever the agent did (`stopped` when `signal`
 * was aborted by a sibling's win); rejects only when the run itself is interrupted or git fails.
 */
export async function runAttempt<T extends OutputType>(
  plan: AttemptPlan<T>,
  k: number,
  signal: AbortSignal,
  runSignal: AbortSignal,
): Promise<AttemptResult> {
  const startedAt = new Date();
  const root = plan.worktreeOf(k);
  await addAttemptWorktree(plan.repo, plan.checkoutTop, plan.checkpoint, root);
  const tally: AttemptTally = {
    envelopeIds: [],
    gates: new Map(),
    costUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    accepted: null,
  };
  const base = plan.contextOf(k, root, signal, tallyingTrace(plan.trace, tally));
  let envelope: EnvelopeOf<T> | null = null;
  let failure: string | null = null;
  try {
    envelope = await liveCall(base, plan.options, plan.prepared, plan.progress());
  } catch (error) {
    if (runSignal.aborted) throw error;
    failure = error instanceof PhaseFailedError ? error.reason : (error as Error).message;
  }
  const changes = await attemptChanges(root, plan.checkpoint, plan.exclude);
  const diff = plan.diffName(k);
  writeAttemptDiff(path.join(plan.sessionRoot, diff), changes.diff);
  let check: FinishedAttempt["check"] = null;
  if (envelope !== null && plan.bestOf.check !== undefined && !signal.aborted) {
    const view: BestOfAttempt = {
      attempt: k,
      root,
      envelope,
      changedLines: changes.changedLines,
      files: changes.files,
      runSuite: (suite) => plan.runSuite(suite, root, k, signal),
    };
    try {
      check = await plan.bestOf.check(view);
    } catch (error) {
      if (runSignal.aborted) throw error;
      check = { ok: false, summary: `the check threw: ${(error as Error).message}` };
    }
  }
  const stopped = signal.aborted && !runSignal.aborted;
  const passed = envelope !== null && (check === null || check.ok);
  const reason =
    failure !== null
      ? stopped
        ? "stopped: another attempt passed first"
        : failure
      : check !== null && !check.ok
        ? `its check failed: ${check.summary}`
        : "passed";
  return {
    call: plan.call,
    attempt: k,
    status: passed ? "passed" : failure !== null && stopped ? "stopped" : "failed",
    passed,
    reason,
    changed_lines: changes.changedLines,
    files: changes.files,
    cost_usd: tally.costUsd,
    input_tokens: tally.inputTokens,
    output_tokens: tally.outputTokens,
    agent_session_id: base.phase.session.sessionId,
    envelope_ids: tally.envelopeIds,
    gates: [...tally.gates.values()],
    check,
    diff,
    envelope: passed ? envelope : null,
    started_at: startedAt.toISOString(),
    ended_at: new Date().toISOString(),
    acceptedRow: passed ? tally.accepted : null,
    ...(failure !== null && budgetReason(failure) ? { budget: failure } : {}),
  };
}
