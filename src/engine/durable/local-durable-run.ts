import {
  type DurablePhase,
  type DurableRun,
  type PhaseIdentity,
  ReplayDiverged,
  type StepOp,
} from "../../api/durable-steps.js";
import type { SessionTrace } from "../../session/session-trace.js";
import type { PhaseRow, StepRow } from "../../trace/events.js";
import { redactJsonValue } from "../../util/secrets/redact-json.js";
import { inputHash } from "./input-hash.js";
import { type StartStep, type StepJournal, stepKey } from "./step-journal.js";

/** A step row's fields the executor decides. */
interface StepFields {
  key: string;
  position: number;
  phaseId: string;
  op: string;
  hash: string;
  result: unknown;
}

/** The identity a `phase` step hashes: a phase at a position matches only the same phase from the same start. */
function phaseInputs(identity: PhaseIdentity): unknown {
  const { workflow, name, kind, owner, previous } = identity;
  return { workflow, name, kind, owner, previous };
}

/**
 * The local executor of the durable-steps port (docs/resume.md): steps are rows of the trace's `steps`
 * table, flushed as they are written, so a step that returned survives a SIGKILL a moment later. With a
 * journal (a resume), phases answer from it until the first one that did not complete or differs; from
 * there on the attempt runs live.
 */
export class LocalDurableRun implements DurableRun {
  readonly attempt: number;
  /** The run's default `previous` before its first phase, as `started` journaled it. */
  startPrevious: object | null = null;
  private diverged: boolean;

  constructor(
    private readonly trace: SessionTrace,
    private readonly journal: StepJournal,
    options: { attempt: number; replay: boolean },
  ) {
    this.attempt = options.attempt;
    this.diverged = !options.replay;
  }

  /** Journals how the attempt starts. */
  started(start: StartStep): void {
    this.startPrevious = start.previous;
    this.write({
      key: "start",
      position: 0,
      phaseId: "",
      op: "start",
      hash: inputHash(start),
      result: start,
    });
  }

  phase(identity: PhaseIdentity): DurablePhase {
    const { position, name } = identity;
    const hash = inputHash(phaseInputs(identity));
    const journaled = this.diverged ? undefined : this.journal.phases.get(position);
    if (!this.diverged) {
      const why =
        journaled === undefined
          ? `${name} at position ${position} did not complete in attempt ${this.journal.attempt}`
          : journaled.step.input_hash !== hash
            ? `${name} at position ${position} differs from attempt ${this.journal.attempt}'s ${journaled.row.name} (phase, owner or the envelope it starts from changed)`
            : null;
      if (why !== null) {
        this.diverge(identity, why);
        return this.livePhase(identity, hash);
      }
    }
    return journaled === undefined
      ? this.livePhase(identity, hash)
      : this.replayedPhase(identity, hash, journaled);
  }

  diverge(identity: PhaseIdentity, why: string): void {
    if (this.diverged) return;
    this.diverged = true;
    this.write({
      key: `p${identity.position}.${identity.name}.diverge`,
      position: identity.position,
      phaseId: "",
      op: "diverge",
      hash: "",
      result: { why },
    });
    this.trace.event({
      type: "log",
      name: `resume runs from here: ${why}`,
      phaseId: null,
      payload: { position: identity.position, phase: identity.name, why, attempt: this.attempt },
    });
  }

  private livePhase(identity: PhaseIdentity, hash: string): DurablePhase {
    const counts = new Map<StepOp, number>();
    let phaseId = "";
    return {
      replays: null,
      step: async <T>(op: StepOp, inputs: unknown, body: () => Promise<T>): Promise<T> => {
        const n = (counts.get(op) ?? 0) + 1;
        counts.set(op, n);
        const result = await body();
        this.write({
          key: stepKey(identity.position, identity.name, op, n),
          position: identity.position,
          phaseId,
          op,
          hash: inputHash(inputs),
          result: result ?? null,
        });
        return result;
      },
      begin: (row: PhaseRow) => {
        phaseId = row.id;
      },
      completed: (row: PhaseRow) => {
        this.write(phaseStep(identity, hash, row));
      },
    };
  }

  private replayedPhase(
    identity: PhaseIdentity,
    hash: string,
    journaled: { row: PhaseRow; steps: StepRow[] },
  ): DurablePhase {
    const counts = new Map<StepOp, number>();
    const byKey = new Map(journaled.steps.map((step) => [step.key, step]));
    const used: StepRow[] = [];
    return {
      replays: journaled.row,
      begin: () => {},
      step: async <T>(op: StepOp, inputs: unknown): Promise<T> => {
        const n = (counts.get(op) ?? 0) + 1;
        counts.set(op, n);
        const key = stepKey(identity.position, identity.name, op, n);
        const recorded = byKey.get(key);
        if (recorded === undefined)
          throw new ReplayDiverged(
            `${identity.name}: ${op}#${n} is not in attempt ${this.journal.attempt}'s journal`,
          );
        if (recorded.input_hash !== inputHash(inputs))
          throw new ReplayDiverged(
            `${identity.name}: the inputs of ${op}#${n} changed since attempt ${this.journal.attempt} (${op === "call" ? "the rendered prompt or the envelope it is given" : "its arguments"})`,
          );
        used.push(recorded);
        return JSON.parse(recorded.result_json) as T;
      },
      completed: (row: PhaseRow) => {
        if (used.length < journaled.steps.length)
          throw new ReplayDiverged(
            `${identity.name}: the phase now makes ${used.length} of the ${journaled.steps.length} steps attempt ${this.journal.attempt} made`,
          );
        // Journaled again, as this attempt's: a later resume reads one attempt, not a chain of them.
        const again = used.map((step) => ({ ...step, phase_id: row.id }));
        again.push(this.row(phaseStep(identity, hash, row)));
        this.trace.writeSteps(
          again.map((step) => ({
            ...step,
            id: `${this.trace.adwId}-a${this.attempt}-${step.key}`,
            attempt: this.attempt,
            replayed: 1,
            created_at: new Date().toISOString(),
          })),
        );
      },
    };
  }

  private write(step: StepFields): void {
    this.trace.writeSteps([this.row(step)]);
  }

  private row(step: StepFields): StepRow {
    return {
      id: `${this.trace.adwId}-a${this.attempt}-${step.key}`,
      adw_id: this.trace.adwId,
      attempt: this.attempt,
      key: step.key,
      position: step.position,
      phase_id: step.phaseId,
      op: step.op,
      input_hash: step.hash,
      result_json: JSON.stringify(redactJsonValue(step.result ?? null)),
      replayed: 0,
      created_at: new Date().toISOString(),
    };
  }
}

/** The step that journals a phase as completed: its status, under the phase's inputs' hash. */
function phaseStep(identity: PhaseIdentity, hash: string, row: PhaseRow): StepFields {
  return {
    key: stepKey(identity.position, identity.name, "phase", 1),
    position: identity.position,
    phaseId: row.id,
    op: "phase",
    hash,
    result: { status: row.status },
  };
}
