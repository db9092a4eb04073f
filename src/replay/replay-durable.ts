/**
 * The replay's durable executor, around the replay session's own journal: every phase runs (its code,
 * its gates, its output types are the current ones); an agent call sends, answered by the replay
 * runtime; every other step (suite, baseline, captured diff, commit, engineer's answer) returns the
 * original's journaled result, or runs again with `--rerun-code` (suites and baselines only).
 */

import type { DurablePhase, DurableRun, PhaseIdentity, StepOp } from "../api/durable-steps.js";
import { SssfError } from "../errors/sssf-error.js";
import type { ReplayState } from "./replay-state.js";

/** Steps that run in the replay itself: the call (answered send by send) and a ladder's rung. */
const LIVE_OPS: ReadonlySet<StepOp> = new Set(["call", "rung"]);
/** Steps `--rerun-code` runs again instead of answering from the record. */
const RERUN_OPS: ReadonlySet<StepOp> = new Set(["suite", "baseline"]);

function stopped(why: string): SssfError {
  return new SssfError("interrupted", `replay stopped: ${why}`);
}

/** Wraps the replay session's journal so each phase answers from `state.record`. */
export function replayDurable(inner: DurableRun, state: ReplayState, rerunCode: boolean): DurableRun {
  return {
    attempt: inner.attempt,
    diverge: (identity, why) => inner.diverge(identity, why),
    phase(identity: PhaseIdentity): DurablePhase {
      const { position, name, kind, owner } = identity;
      const recorded = state.phaseAt(position);
      const row = recorded?.row;
      if (row === undefined || row.name !== name || row.kind !== kind || row.owner !== owner) {
        const why =
          row === undefined
            ? `not in the record: ${kind} phase ${name} (owner ${owner}) at position ${position}: the run recorded ${state.record.phases.size} phase(s)`
            : `not in the record: ${kind} phase ${name} (owner ${owner}) at position ${position}: the run recorded ${row.kind} phase ${row.name} (owner ${row.owner}) there`;
        state.stopAt({ position, phase: name, agent: null, send: null, why, not_in_record: true });
        throw stopped(why);
      }
      state.started.set(position, name);
      const live = inner.phase(identity);
      const counts = new Map<StepOp, number>();
      return {
        replays: null,
        rerun: null,
        checkpointed: (checkpoint) => live.checkpointed(checkpoint),
        begin: (phaseRow) => live.begin(phaseRow),
        completed: (phaseRow) => live.completed(phaseRow),
        step: <T>(op: StepOp, inputs: unknown, body: () => Promise<T>): Promise<T> => {
          const n = (counts.get(op) ?? 0) + 1;
          counts.set(op, n);
          if (LIVE_OPS.has(op))
            return live.step(op, inputs, () => state.slot.run({ position, phase: name }, body));
          const key = `${op}#${n}`;
          const answer = recorded?.steps.get(key);
          if (answer === undefined) {
            const why = state.record.journaled
              ? `not in the record: ${name} (position ${position}) asks for ${key}, which the run's journal does not hold`
              : `${name} (position ${position}): ${key} cannot be answered: the run has no step journal (a trace older than sssf resume)`;
            state.stopAt({
              position,
              phase: name,
              agent: null,
              send: null,
              why,
              not_in_record: state.record.journaled,
            });
            return Promise.reject(stopped(why));
          }
          if (rerunCode && RERUN_OPS.has(op))
            return live.step(op, inputs, async () => {
              const result = await body();
              state.codeSteps.push({ position, key, recorded: answer, rerun: result });
              return result;
            });
          state.codeSteps.push({ position, key, recorded: answer });
          return live.step(op, inputs, async () => answer as T);
        },
      };
    },
  };
}
