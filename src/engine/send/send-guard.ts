/**
 * The budget guard of one send: refuses a send when a budget is already spent, and otherwise gives
 * the send an abort signal of its own that fires on the run's abort, on an overrun seen in the usage
 * the send streams, and on a timer at the nearest time limit. Aborting makes the runtime kill the
 * agent's process group; the phase then fails with the overrun's reason (`send-to-agent.ts`).
 */
import { PhaseFailedError } from "../../errors/phase-failed-error.js";
import type { Usage } from "../../runtimes/runtime.js";
import { type BudgetOverrun, overrunPayload, SendMeter, sendLimits } from "../budget.js";
import type { CallContext } from "../call-context.js";

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
  close(): (BudgetOverrun & { when: OverrunWhen }) | null;
  /** Stops the timer and the run-abort listener without judging anything (a send that threw). */
  dispose(): void;
}

/** When an overrun was seen: before the send, while it streamed, or in its final usage. */
export type OverrunWhen = "before_send" | "during_send" | "after_send";

/**
 * The phase failure of an overrun: its reason, and the figures the phase's `error` event carries
 * (`tracePhase` writes that one event).
 */
export function overrunFailure(
  context: CallContext,
  overrun: BudgetOverrun,
  when: OverrunWhen,
): PhaseFailedError {
  return new PhaseFailedError(context.phase.row.name, overrun.reason, { ...overrunPayload(overrun), when });
}

/**
 * Opens the guard of the next send of `context`. Throws `PhaseFailedError` (with the figures) when a budget has
 * nothing left: the agent is not called.
 */
export function guardSend(context: CallContext): SendGuard {
  const { run, agent, phase } = context;
  const limits = sendLimits(run.budget, agent.config, phase.row, phase.budget);
  const meter = new SendMeter(run.budget, run.trace.session, phase.row, limits);
  const exhausted = meter.check(true);
  if (exhausted !== null) {
    const reason = `${exhausted.reason}; ${agent.config.name} was not called`;
    throw overrunFailure(context, { ...exhausted, reason }, "before_send");
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
        return { ...overrun, when: "during_send" };
      }
      return final === null ? null : { ...final, when: "after_send" };
    },
  };
}
