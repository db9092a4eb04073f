/**
 * Model ladders (`agents[].models`, docs/reliability.md): when an agent phase's corrections run out on
 * one model (`CorrectionsExhaustedError`), the call starts again, fresh, on the next model: a new agent
 * session, the same rendered prompt, no conversation carried over, the worktree as the last rung left
 * it. Every climb is an `escalation` event with a `!` line on the terminal; the envelopes of every rung
 * are numbered on, in one sequence, so each attempt's model is known from the escalations. When the
 * last rung fails too, the phase fails with every rung's reason. Budgets count every rung: they all
 * send within the one phase.
 */
import { PhaseFailedError } from "../errors/phase-failed-error.js";
import { newAgentSessionId } from "../session/agent-map.js";
import { nowIso } from "../session/session-trace.js";
import type { CallContext } from "./call-context.js";
import { CorrectionsExhaustedError } from "./corrections-exhausted.js";

/** The agent's ladder: `models` when it has one, else its one `model`. */
export function ladderOf(context: CallContext): string[] {
  const { model, models } = context.agent.config;
  return models !== undefined && models.length > 0 ? models : [model];
}

/** The call's context on rung `rung` (> 0): the agent with that model, in a session of its own. */
function contextOnRung(context: CallContext, model: string): CallContext {
  const { run, agent, phase } = context;
  const config = { ...agent.config, model };
  const session = {
    agent: config.name,
    sessionId: newAgentSessionId(run.adwId, config.name),
    nativeSessionId: undefined,
    model,
    codingAgent: config.codingAgent,
    sends: 0,
    createdAt: nowIso(),
  };
  return { run, agent: { ...agent, config }, phase: { ...phase, session } };
}

/** `model "x"` / `the runtime's default model`, for lines. */
const named = (model: string): string => (model === "" ? "the runtime's default model" : model);

/**
 * Runs `body` on each rung from `start` until one returns; `attempts()` says how many envelopes the
 * call has numbered so far (the next rung's first attempt follows them). `onRung` is told each rung
 * started live after the first (for the journal).
 */
export async function climbLadder<R>(
  context: CallContext,
  start: { rung: number; reasons: string[] },
  attempts: () => number,
  body: (rungContext: CallContext) => Promise<R>,
  onFailed: (rung: number, reason: string) => Promise<void>,
): Promise<R> {
  const ladder = ladderOf(context);
  const reasons = [...start.reasons];
  for (let rung = Math.min(start.rung, ladder.length - 1); ; rung++) {
    const model = ladder[rung] ?? "";
    const onRung = rung === 0 ? context : contextOnRung(context, model);
    try {
      return await body(onRung);
    } catch (error) {
      if (!(error instanceof CorrectionsExhaustedError) || ladder.length < 2) throw error;
      reasons.push(`${named(model)}: ${error.reason}`);
      await onFailed(rung, error.reason);
      const next = ladder[rung + 1];
      if (next === undefined) {
        throw new PhaseFailedError(
          context.phase.row.name,
          `every model of the ladder failed (${reasons.join(" | ")})`,
        );
      }
      escalate(
        context,
        { from: model, to: next, rung: rung + 1, of: ladder.length, reason: error.reason },
        attempts(),
      );
    }
  }
}

/** Traces the climb as an `escalation` event and prints its line. */
function escalate(
  context: CallContext,
  step: { from: string; to: string; rung: number; of: number; reason: string },
  attemptsSoFar: number,
): void {
  const { run, agent, phase } = context;
  const line = `! ${agent.config.name}: corrections exhausted on ${named(step.from)} (${step.reason}); escalated to ${named(step.to)}, rung ${step.rung + 1}/${step.of}, in a fresh session`;
  run.trace.event({
    type: "escalation",
    name: `escalated ${named(step.from)} → ${named(step.to)}: ${step.reason}`,
    phaseId: phase.row.id,
    agent: agent.config.name,
    ok: false,
    payload: {
      from: step.from,
      to: step.to,
      rung: step.rung,
      reason: step.reason,
      first_attempt: attemptsSoFar + 1,
      shown: [line],
    },
  });
  run.reporter.log(line, phase.row);
}
