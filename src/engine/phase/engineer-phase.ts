/**
 * The handle an engineer phase's body gets: its name and number, its log, and `ask`, journaled as a
 * durable step and answered from the approval files, `--yes`, or the host's second door (a cluster's).
 */
import type { DurablePhase } from "../../api/durable-steps.js";
import type { EngineerPhase } from "../../api/run-api.js";
import { type AskContext, askEngineer } from "../../approval/engineer-ask.js";
import type { RunReporter } from "../../session/reporter.js";
import type { SessionTrace } from "../../session/session-trace.js";
import type { PhaseRow } from "../../trace/events.js";
import { stepKey } from "../durable/step-journal.js";
import type { RunHost } from "../run-host.js";

export interface EngineerPhaseContext {
  row: PhaseRow;
  durable: DurablePhase;
  position: number;
  adwId: string;
  trace: SessionTrace;
  reporter: RunReporter;
  signal: AbortSignal;
  sessionRoot: string;
  yes: boolean;
  commandFlags: AskContext["commandFlags"];
  host: RunHost | undefined;
  log: EngineerPhase["log"];
}

export function engineerPhaseHandle(ctx: EngineerPhaseContext): EngineerPhase {
  const { row, durable } = ctx;
  let asked = 0;
  return {
    name: row.name,
    number: row.number,
    log: ctx.log,
    ask: (question, details) =>
      durable.step("ask", { question, details: details ?? null }, () =>
        askEngineer(
          {
            adwId: ctx.adwId,
            phase: row,
            trace: ctx.trace,
            reporter: ctx.reporter,
            signal: ctx.signal,
            sessionRoot: ctx.sessionRoot,
            yes: ctx.yes,
            commandFlags: ctx.commandFlags,
            ...remoteAnswerOf(ctx, ++asked),
          },
          question,
          details,
        ),
      ),
  };
}

/**
 * The host's second door for the engineer's answer to the `n`th question of the phase, keyed like
 * its journal step, if the host has one.
 */
function remoteAnswerOf(
  ctx: EngineerPhaseContext,
  n: number,
): Pick<AskContext, "remoteAnswer" | "answerVia"> {
  const { host, row } = ctx;
  if (host?.remoteAnswer === undefined) return {};
  const remoteAnswer = host.remoteAnswer.bind(host);
  const key = stepKey(ctx.position, row.name, "ask", n);
  return {
    remoteAnswer: (signal) => remoteAnswer({ adwId: ctx.adwId, key, question: row.name }, signal),
    // Not `*_key`: the trace redacts a field named like a secret.
    answerVia: { ...host.answerVia, answer_step: key },
  };
}
