import { PhaseFailedError } from "../../errors/phase-failed-error.js";
import { isSssfError } from "../../errors/sssf-error.js";
import type { RunReporter } from "../../session/reporter.js";
import type { SessionTrace } from "../../session/session-trace.js";
import type { PhaseRow } from "../../trace/events.js";
import { endPhaseRow } from "../../trace/rows.js";

/** What a phase's lifecycle writes to and asks. */
export interface PhaseLifecycle {
  trace: SessionTrace;
  reporter: RunReporter;
  /** Why a phase whose body returned still failed (a failing suite), or undefined. */
  softFailure(phaseId: string): string | undefined;
}

/** The reason a phase failed with `error`: a `PhaseFailedError`'s own reason, or the message. */
function failureReason(error: unknown): string {
  return isSssfError(error) && error.code === "phase_failed"
    ? ((error as { reason?: string }).reason ?? error.message)
    : (error as Error).message;
}

/**
 * Runs `body` as the phase `row`: written `running` with a `phase_start` event, `fail` until the body
 * returns (or `fail` with its soft failure), an `error` event when it throws, and always ended with its
 * duration and a `phase_end` event. Rethrows what the body throws.
 */
export async function tracePhase<R>(
  lifecycle: PhaseLifecycle,
  row: PhaseRow,
  body: () => R | Promise<R>,
): Promise<R> {
  const { trace, reporter } = lifecycle;
  const agent = row.kind === "agent" ? row.owner : null;
  trace.writePhase(row);
  trace.event({
    type: "phase_start",
    name: row.name,
    phaseId: row.id,
    agent,
    payload: { kind: row.kind, owner: row.owner },
  });
  reporter.phaseStarted(row);
  // The row stays `running` while the body runs: a row written meanwhile (its usage) and never ended,
  // because sssf was killed, must read as running, so the next sssf closes it as interrupted.
  try {
    const result = await body();
    const soft = lifecycle.softFailure(row.id);
    row.status = soft === undefined ? "success" : "fail";
    if (soft !== undefined) row.error = soft;
    return result;
  } catch (error) {
    row.status = "fail";
    row.error = failureReason(error);
    trace.event({
      type: "error",
      name: row.error ?? "phase failed",
      phaseId: row.id,
      agent,
      ok: false,
      payload: {
        error: row.error,
        ...(isSssfError(error) ? { code: error.code } : { stack: (error as Error).stack }),
        ...(error instanceof PhaseFailedError ? error.details : undefined),
        // The terminal shows it on the phase's ✘ line, not as a line of its own.
        shown: [],
      },
    });
    throw error;
  } finally {
    const ended = new Date();
    trace.writePhase(endPhaseRow(row, ended));
    trace.event({
      type: "phase_end",
      name: row.name,
      phaseId: row.id,
      agent,
      ok: row.status === "success",
      startedAt: ended,
      payload: { status: row.status, error: row.error, duration_ms: row.duration_ms },
    });
    reporter.phaseEnded(row);
  }
}
