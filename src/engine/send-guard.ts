/**
 * The budget guard of one send: refuses a send when a budget is already spent, and otherwise gives
 * the send an abort signal of its own that fires on the run's abort, on an overrun seen in the usage
 * the send streams, and on a timer at the nearest time limit. Aborting makes the runtime kill the
 * agent's process group; the phase then fails with the overrun's reason (`send-to-agent.ts`).
 */
import { PhaseFailedError } from "../errors/phase-failed-error.js";
import type { Usage } from "../runtimes/runtime.js";
import { type BudgetOverrun, overrunPayload, SendMeter, sendLimits } from "./budget.js";
import type { CallContext } from "./call-context.js";

/** What a guarded send is given, and how it reports back. */
export interface SendGuard {
  /** The send's signal: the run's abort, or a budget's. */
  signal: AbortSignal;
  /** USD left under the tightest cost budget (undefined: none), for runtimes that cap spend natively. */
  maxBudgetUsd: number | undefined;
  /** Usage the send streamed, priced: counted, and the send aborted once a budget is exceeded. */
  onUsage(usage: Usage): void;
  /**
   * Ends the guard after the send's final usage is in the session's and the phase's rows: stops the
   * timer and returns the overrun that aborted the send or that its final usage makes (null: none).
   */
  close(): BudgetOverrun | null;
  /** Stops the timer and the run-abort listener without judging anything (a send that threw). */
  dispose(): void;
}

/** Traces an overrun as an `error` event naming the budget, its limit and what was spent. */
export function traceOverrun(context: CallContext, overrun: BudgetOverrun, when: string): void {
  const { run, agent, phase } = context;
  run.trace.event({
    type: "error",
    name: overrun.reason,
    phaseId: phase.row.id,
    agent: agent.config.name,
    ok: false,
    payload: { ...overrunPayload(overrun), when },
  });
}

/**
 * Opens the guard of the next send of `context`. Throws `PhaseFailedError` (traced) when a budget has
 * nothing left: the agent is not called.
 */
export function guardSend(context: CallContext): SendGuard {
  const { run, agent, phase } = context;
  const limits = sendLimits(run.budget, agent.config, phase.row, phase.budget);
  const meter = new SendMeter(run.budget, run.trace.session, phase.row, limits);
  const exhausted = meter.check(true);
  if (exhausted !== null) {
    const reason = `${exhausted.reason}; ${agent.config.name} was not called`;
    traceOverrun(context, { ...exhausted, reason }, "before_send");
    throw new PhaseFailedError(phase.row.name, reason);
  }
  const controller = new AbortController();
  const onRunAbort = () => controller.abort(run.signal.reason);
  if (run.signal.aborted) controller.abort(run.signal.reason);
  else run.signal.addEventListener("abort", onRunAbort, { once: true });
  let stoppedBy: BudgetOverrun | null = null;
  let timer: NodeJS.Timeout | undefined;
  const stop = (overrun: BudgetOverrun) => {
    if (stoppedBy !== null || controller.signal.aborted) return;
    stoppedBy = overrun;
    controller.abort(new Error(overrun.reason));
  };
  const arm = () => {
    const wait = meter.msUntilTimeLimit();
    if (wait === undefined || controller.signal.aborted) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        const overrun = meter.check(false);
        if (overrun !== null) stop(overrun);
        else arm();
      },
      Math.max(1, Math.ceil(wait)),
    );
  };
  if (limits.some((limit) => limit.measure === "seconds")) arm();
  const dispose = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    run.signal.removeEventListener("abort", onRunAbort);
  };
  return {
    signal: controller.signal,
    maxBudgetUsd: meter.remainingUsd(),
    onUsage(usage) {
      meter.add(usage);
      const overrun = meter.check(false);
      if (overrun !== null) stop(overrun);
    },
    dispose,
    close() {
      dispose();
      meter.settle();
      const final = meter.check(false);
      const stopped = stoppedBy as BudgetOverrun | null;
      if (stopped !== null) {
        // The final count may differ from the streamed one: report the final figure when still over.
        const overrun = final !== null && final.limit === stopped.limit ? final : stopped;
        traceOverrun(context, overrun, "during_send");
        return overrun;
      }
      if (final !== null) traceOverrun(context, final, "after_send");
      return final;
    },
  };
}
