/**
 * Re-running a completed phase's body against its journal: every step answers from it. Done when the
 * body returned after using exactly the journaled steps; otherwise (a step that differs, a missing or
 * extra step, a throw) the run's default `previous` is put back and the phase must run live.
 */
import { type DurablePhase, ReplayDiverged } from "../../api/durable-steps.js";
import type { PhaseRow } from "../../trace/events.js";

/** What a replay needs of the run. */
export interface ReplayContext {
  inPhase<T>(phaseId: string, fn: () => T): T;
  lastEnvelope(): object | null;
  restoreLastEnvelope(envelope: object | null): void;
  /** Throws when the run was interrupted: an interrupted replay is no divergence. */
  throwIfAborted(): void;
}

export async function replayPhase<R>(
  ctx: ReplayContext,
  durable: DurablePhase,
  original: PhaseRow,
  position: number,
  body: (row: PhaseRow, durable: DurablePhase, position: number) => R | Promise<R>,
): Promise<{ done: true; value: R; row: PhaseRow } | { done: false; why: string }> {
  const row: PhaseRow = { ...original, replayed_at: new Date().toISOString() };
  const before = ctx.lastEnvelope();
  try {
    durable.begin(row);
    const value = await ctx.inPhase(row.id, () => body(row, durable, position));
    await durable.completed(row);
    return { done: true, value, row };
  } catch (error) {
    ctx.throwIfAborted();
    ctx.restoreLastEnvelope(before);
    const why =
      error instanceof ReplayDiverged
        ? error.why
        : `${row.name}: its code threw while replaying (${(error as Error).message})`;
    return { done: false, why };
  }
}
