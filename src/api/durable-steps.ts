/**
 * The engine-neutral port a run's phases go through to be durable (docs/resume.md). A phase is one
 * durable unit: it is either answered whole from an earlier attempt's journal or run whole, live.
 * Inside it, every operation with an effect outside the process (an agent call, a suite, a suite's baseline, a captured
 * diff, a commit, a hand-off, an engineer's answer) is a step with an idempotency key and a hash of
 * its inputs; an engineer's answer is a durable wait. The local executor keeps the journal in the
 * trace; a distributed engine maps a step to its own journaled action and a wait to its own promise.
 */

import type { PhaseKind, PhaseRow } from "../trace/events.js";

/** What a step does; the key of a step is `p<position>.<phase>.<op>#<n>`. */
export type StepOp =
  | "call"
  | "suite"
  | "baseline"
  | "changes"
  | "commit"
  | "handoff"
  | "ask"
  | "rung"
  | "attempt";

/** A rung of a model ladder whose corrections ran out (op `rung`): a resume starts its call above it. */
export interface ClimbedRung {
  /** The call it belongs to: sha256 of its rendered system and user prompts. */
  call: string;
  rung: number;
  model: string;
  reason: string;
}

/**
 * A finished attempt of a best-of call (op `attempt`): a resume keeps it instead of running it again.
 * Snake_case: it is journaled as the attempt event's payload.
 */
export interface FinishedAttempt {
  /** The call it belongs to: sha256 of its rendered system and user prompts. */
  call: string;
  attempt: number;
  passed: boolean;
  reason: string;
  changed_lines: number;
  files: string[];
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  agent_session_id: string;
  envelope_ids: string[];
  gates: { gate: string; ok: boolean; violations: string[] }[];
  check: { ok: boolean; summary: string } | null;
  /** The attempt's diff against the checkpoint, relative to the session folder. */
  diff: string;
  /** Its accepted envelope (null when it failed). */
  envelope: object | null;
  started_at: string;
  ended_at: string;
}

/** Who a phase is, as the journal matches it: its place in the run and what it starts from. */
export interface PhaseIdentity {
  workflow: string;
  /** 1-based, in the order the run starts its phases. */
  position: number;
  name: string;
  kind: PhaseKind;
  owner: string;
  /** The envelope the phase starts from (the run's default `previous`). */
  previous: object | null;
}

/**
 * The worktree as it was before a phase started (docs/resume.md, "The checkpoint before a phase"): a
 * commit whose tree is the working tree (ignored files left out) and whose first parent is `head`.
 */
export interface PhaseCheckpoint {
  commit: string;
  /** HEAD when it was taken. */
  head: string;
  /** The branch HEAD named then (a full ref), or null when HEAD was detached. */
  branch: string | null;
  /** Other phases ran beside this one (a parallel branch): the worktree held their work in progress too. */
  parallel: boolean;
}

/** One phase's view of the journal. */
export interface DurablePhase {
  /** The phase row of the attempt this phase is answered from, or null when it runs live. */
  readonly replays: PhaseRow | null;
  /**
   * Live only: set when an earlier attempt started this phase and did not complete it, and it is the
   * first phase this attempt runs live; `checkpoint` is the one that attempt took before it (null when
   * it took none: in place, or a journal older than checkpoints). Null otherwise.
   */
  readonly rerun: {
    checkpoint: PhaseCheckpoint | null;
    climbed?: readonly ClimbedRung[];
    /** Best-of attempts that finished before the crash (op `attempt`). */
    attempts?: readonly FinishedAttempt[];
  } | null;
  /**
   * Journals that the phase starts live, with the checkpoint taken before it (null when none was), for
   * a later resume to go back to.
   */
  checkpointed(checkpoint: PhaseCheckpoint | null): Promise<void>;
  /** The row the phase runs as (a live phase's new row, or the replayed one), before its body runs. */
  begin(row: PhaseRow): void;
  /**
   * Runs `body` as the next `op` step of the phase. Live: runs it and journals its result. Replaying:
   * returns the journaled result when the step's key and input hash match, without running `body`;
   * otherwise throws `ReplayDiverged` so the phase runs again, live, from its start.
   */
  step<T>(op: StepOp, inputs: unknown, body: () => Promise<T>): Promise<T>;
  /**
   * The phase's body returned. Replaying, throws `ReplayDiverged` when the body used fewer steps than
   * the journal holds; live, journals the phase as completed (resolved once it is stored).
   */
  completed(row: PhaseRow): Promise<void>;
}

/** A run's durable executor: one per attempt. */
export interface DurableRun {
  /** The number of this attempt of the session (1 for the first run, +1 per resume or join). */
  readonly attempt: number;
  /** Opens the phase at `identity.position`: replayed when the journal completed the same phase. */
  phase(identity: PhaseIdentity): DurablePhase;
  /** A replayed phase turned out different: everything from it on runs live. */
  diverge(identity: PhaseIdentity, why: string): void;
}

/** Thrown by a replaying step whose inputs differ from the journal's: the phase must run live. */
export class ReplayDiverged extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = "ReplayDiverged";
  }
}
