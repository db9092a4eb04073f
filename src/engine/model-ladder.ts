/**
 * Model ladders (`agents[].models`, docs/reliability.md): when an agent phase's corrections run out on
 * one model (`CorrectionsExhaustedError`), the call starts again, fresh, on the next model: a new agent
 * session, the same rendered prompt, no conversation carried over, the worktree as the last rung left
 * it. Every climb is an `escalation` event with a `!` line on the terminal; the envelopes of every rung
 * are numbered on, in one sequence, so each attempt's model is known from the escalations. When the
 * last rung fails too, the phase fails with every rung's reason. Budgets count every rung: they all
 * send within the one phase.
 */
import { createHash } from "node:crypto";
import type { ClimbedRung } from "../api/durable-steps.js";
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

/** The call a journaled rung belongs to: its rendered prompts, hashed. */
function callKey(prompts: { system: string; user: string }): string {
  return createHash("sha256").update(prompts.system).update("\u0000").update(prompts.user).digest("hex");
}

/**
 * Where a call starts: rung 0, or after a crash (a rerun of the phase) the rung above the last one
 * this call's journal climbed past, while the ladder still names the same models there.
 */
async function startingRung(
  context: CallContext,
  call: string,
  ladder: readonly string[],
): Promise<{ rung: number; reasons: string[] }> {
  const climbed = (context.phase.durable.rerun?.climbed ?? [])
    .filter((entry) => entry.call === call)
    .sort((a, b) => a.rung - b.rung);
  const same = climbed.every((entry, index) => entry.rung === index && ladder[entry.rung] === entry.model);
  if (climbed.length === 0 || !same || climbed.length >= ladder.length) return { rung: 0, reasons: [] };
  // Journaled again in this attempt, so a second crash resumes as high.
  for (const entry of climbed) await context.phase.durable.step("rung", entry, async () => entry);
  const rung = climbed.length;
  const { run, agent, phase } = context;
  const line = `! ${agent.config.name}: resumes its model ladder on ${named(ladder[rung] ?? "")}, rung ${rung + 1}/${ladder.length} (the earlier attempt's corrections ran out below it)`;
  run.trace.event({
    type: "log",
    name: line.slice(2),
    phaseId: phase.row.id,
    agent: agent.config.name,
    payload: { rung, model: ladder[rung], climbed, shown: [line] },
  });
  run.reporter.log(line, phase.row);
  return { rung, reasons: climbed.map((entry) => `${named(entry.model)}: ${entry.reason}`) };
}

/**
 * Runs `body` on each rung of the agent's ladder until one returns, from rung 0 (or, resumed, the
 * rung the journal reached). `attempts()` says how many envelopes the call has numbered so far (the
 * next rung's first attempt follows them). Each rung climbed past is journaled (op `rung`).
 */
export async function climbLadder<R>(
  context: CallContext,
  prompts: { system: string; user: string },
  attempts: () => number,
  body: (rungContext: CallContext) => Promise<R>,
): Promise<R> {
  const ladder = ladderOf(context);
  const call = callKey(prompts);
  const start = ladder.length < 2 ? { rung: 0, reasons: [] } : await startingRung(context, call, ladder);
  const reasons = [...start.reasons];
  for (let rung = start.rung; ; rung++) {
    const model = ladder[rung] ?? "";
    const onRung = rung === 0 ? context : contextOnRung(context, model);
    try {
      return await body(onRung);
    } catch (error) {
      if (!(error instanceof CorrectionsExhaustedError) || ladder.length < 2) throw error;
      reasons.push(`${named(model)}: ${error.reason}`);
      const entry: ClimbedRung = { call, rung, model, reason: error.reason };
      await context.phase.durable.step("rung", entry, async () => entry);
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
