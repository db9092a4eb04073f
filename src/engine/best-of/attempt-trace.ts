/**
 * How a best-of call is told: one `attempt` event per attempt and one `best_of` event with the choice
 * (the wire contract the UI and `sssf phases` read, src/trace/events.ts), and their terminal lines.
 */

import type { RunReporter } from "../../session/reporter.js";
import type { SessionTrace } from "../../session/session-trace.js";
import type { PhaseRow } from "../../trace/events.js";
import type { AttemptResult } from "./run-attempt.js";

/** What the events of one call name besides its attempts. */
export interface BestOfTold {
  trace: SessionTrace;
  reporter: RunReporter;
  row: PhaseRow;
  agent: string;
  of: number;
  mode: "best" | "first";
}

/** The `attempt` event of `result`, with whether it won and why it won or lost. */
export function traceAttempt(
  told: BestOfTold,
  result: AttemptResult,
  outcome: { winner: boolean; reason: string },
): void {
  const { trace, row, agent, of, mode } = told;
  const startedAt = new Date(result.started_at);
  const endedAt = new Date(result.ended_at);
  trace.event({
    type: "attempt",
    name: `attempt ${result.attempt} of ${of}`,
    phaseId: row.id,
    agent,
    ok: result.passed,
    startedAt,
    endedAt: endedAt < startedAt ? startedAt : endedAt,
    payload: {
      attempt: result.attempt,
      of,
      mode,
      status: result.status,
      winner: outcome.winner,
      reason: outcome.reason,
      changed_lines: result.changed_lines,
      files: result.files,
      cost_usd: result.cost_usd,
      input_tokens: result.input_tokens,
      output_tokens: result.output_tokens,
      agent_session_id: result.agent_session_id,
      envelope_ids: result.envelope_ids,
      gates: result.gates,
      check: result.check,
      diff: result.diff,
    },
  });
  const gates =
    result.gates.length === 0 ? "" : `, gates ${result.gates.every((g) => g.ok) ? "ok" : "failed"}`;
  const mark = outcome.winner ? "WINNER" : result.status;
  const line = `${outcome.winner ? "" : "  "}attempt ${result.attempt}/${of}: ${mark}, ${result.changed_lines} changed line(s), $${result.cost_usd.toFixed(4)}${gates} — ${outcome.reason}`;
  told.reporter.log(result.passed ? line : `! ${line}`, row);
}

/** The `best_of` event: the winner (or none) and why. */
export function traceChoice(told: BestOfTold, winner: number | null, reason: string): void {
  const { trace, row, agent, of, mode } = told;
  trace.event({
    type: "best_of",
    name: winner === null ? "no attempt passed" : `winner attempt ${winner}`,
    phaseId: row.id,
    agent,
    ok: winner !== null,
    payload: { attempts: of, mode, winner, reason },
  });
  const line =
    winner === null
      ? `! best of ${of}: no attempt passed`
      : `best of ${of}: attempt ${winner} wins — ${reason}; its changes are the run's`;
  told.reporter.log(line, row);
}
