import type { ClimbedRung, FinishedAttempt, PhaseCheckpoint } from "../../api/durable-steps.js";
import type { PhaseRow, StepRow } from "../../trace/events.js";
import type { RunRoots } from "./run-roots.js";

/** What `op = "start"` journals: how the attempt began, for a resume to begin the same way. */
export interface StartStep {
  workflow: string;
  request: string;
  /** `--agent`, when given. */
  agent: string | null;
  merge: boolean;
  yes: boolean;
  /** The run's default `previous` before its first phase. */
  previous: object | null;
  /**
   * Where the attempt ran (docs/resume.md, "What the hash leaves out"): its inputs were hashed with
   * these folders named, not spelled. Absent in journals written before: their hashes spell them.
   */
  roots?: RunRoots;
  /**
   * `--fake-script`'s absolute path when the attempt ran offline against the fake model; absent for an
   * online attempt (and in journals written before it was recorded).
   */
  fake_script?: string;
  /** `--best-of N`, when given (absent otherwise, so older journals hash the same). */
  best_of?: number;
}

/** A completed phase as the journal holds it: its row and its steps in order. */
export interface JournaledPhase {
  step: StepRow;
  row: PhaseRow;
  steps: StepRow[];
}

/** The journal a resume answers from: the newest attempt's truth about every position it reached. */
export interface StepJournal {
  /** The attempt the journal comes from (0: none). */
  attempt: number;
  start: StartStep | null;
  /** Completed phases by position. */
  phases: Map<number, JournaledPhase>;
  /**
   * Every position whose phase the attempt started live, with the checkpoint taken before it (null:
   * none was taken, in place or when git could not).
   */
  checkpoints: Map<number, PhaseCheckpoint | null>;
  /** The ladder rungs each position's calls climbed past (op `rung`), for a phase that did not complete. */
  rungs: Map<number, ClimbedRung[]>;
  /** The best-of attempts each position's calls finished (op `attempt`), for a phase that did not complete. */
  attempts: Map<number, FinishedAttempt[]>;
}

/** The key of the `n`-th `op` step of the phase at `position`. */
export function stepKey(position: number, phase: string, op: string, n: number): string {
  return `p${position}.${phase}.${op}#${n}`;
}

/**
 * Builds the journal from a session's step rows (any order) and phase rows. Attempts are read oldest
 * first: an attempt that ran anything live (or diverged) replaces the journal, since everything after
 * its first live step may differ; an attempt that only replayed confirms the older journal, so a
 * resume that crashed while replaying loses nothing.
 */
export function buildJournal(steps: readonly StepRow[], phases: readonly PhaseRow[]): StepJournal {
  const rows = new Map(phases.map((row) => [row.id, row]));
  const byAttempt = new Map<number, StepRow[]>();
  for (const step of steps) {
    const list = byAttempt.get(step.attempt) ?? [];
    list.push(step);
    byAttempt.set(step.attempt, list);
  }
  let chosen: StepRow[] = [];
  let attempt = 0;
  for (const number of [...byAttempt.keys()].sort((a, b) => a - b)) {
    const list = byAttempt.get(number) ?? [];
    if (attempt === 0 || list.some((step) => step.replayed === 0 && step.op !== "start")) {
      chosen = list;
      attempt = number;
    }
  }
  chosen = [...chosen].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const startRow = chosen.find((step) => step.op === "start");
  const journal: StepJournal = {
    attempt,
    start: startRow ? (JSON.parse(startRow.result_json) as StartStep) : null,
    phases: new Map(),
    checkpoints: new Map(),
    rungs: new Map(),
    attempts: new Map(),
  };
  for (const step of chosen) {
    if (step.op === "checkpoint")
      journal.checkpoints.set(step.position, JSON.parse(step.result_json) as PhaseCheckpoint | null);
    if (step.op === "rung") {
      const list = journal.rungs.get(step.position) ?? [];
      list.push(JSON.parse(step.result_json) as ClimbedRung);
      journal.rungs.set(step.position, list);
    }
    if (step.op === "attempt") {
      const list = journal.attempts.get(step.position) ?? [];
      list.push(JSON.parse(step.result_json) as FinishedAttempt);
      journal.attempts.set(step.position, list);
    }
    if (step.op !== "phase") continue;
    const row = rows.get(step.phase_id);
    if (!row) continue;
    const prefix = `p${step.position}.`;
    const inner = chosen.filter(
      (other) =>
        other.position === step.position &&
        other.op !== "phase" &&
        other.op !== "checkpoint" &&
        // A rung is a note for a crashed phase's rerun, not a step a replay answers.
        other.op !== "rung" &&
        other.op !== "attempt" &&
        other.key.startsWith(prefix),
    );
    journal.phases.set(step.position, { step, row, steps: inner });
  }
  return journal;
}
