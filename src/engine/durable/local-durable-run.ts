import {
  type DurablePhase,
  type DurableRun,
  type PhaseCheckpoint,
  type PhaseIdentity,
  ReplayDiverged,
  type StepOp,
} from "../../api/durable-steps.js";
import type { SessionTrace } from "../../session/session-trace.js";
import type { PhaseRow, StepRow } from "../../trace/events.js";
import { redactJsonValue } from "../../util/secrets/redact-json.js";
import { inputHash } from "./input-hash.js";
import { type RunRoots, relocate } from "./run-roots.js";
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
  /** Where this attempt runs: every hash names these folders instead of spelling them. */
  private readonly roots: RunRoots;
  /**
   * The journal's hashes spell absolute paths (written before roots were recorded): a step matches
   * when its old-format hash does too, which holds as long as the run's folders did not move.
   */
  private readonly legacy: boolean;

  constructor(
    private readonly trace: SessionTrace,
    private readonly journal: StepJournal,
    options: { attempt: number; replay: boolean; roots: RunRoots },
  ) {
    this.attempt = options.attempt;
    this.diverged = !options.replay;
    this.roots = options.roots;
    this.legacy = journal.attempt > 0 && journal.start !== null && journal.start.roots === undefined;
  }

  /** A journaled value (written where the journal's attempt ran) with its paths where the folders are now. */
  relocated<T>(value: T): T {
    return relocate(value, this.journal.start?.roots, this.roots);
  }

  /** Journals how the attempt starts, with where it runs. */
  started(start: Omit<StartStep, "roots">): void {
    this.startPrevious = start.previous;
    const step: StartStep = { ...start, roots: this.roots };
    this.queue({
      key: "start",
      position: 0,
      phaseId: "",
      op: "start",
      hash: this.hash(start),
      result: step,
    });
  }

  private hash(inputs: unknown): string {
    return inputHash(inputs, this.roots);
  }

  /** The journaled hash is this one's, or (an older journal) the old format's of the same inputs. */
  private matches(recorded: string, hash: string, inputs: unknown): boolean {
    return recorded === hash || (this.legacy && recorded === inputHash(inputs));
  }

  phase(identity: PhaseIdentity): DurablePhase {
    const { position, name } = identity;
    const inputs = phaseInputs(identity);
    const hash = this.hash(inputs);
    const journaled = this.diverged ? undefined : this.journal.phases.get(position);
    if (!this.diverged) {
      const why =
        journaled === undefined
          ? `${name} at position ${position} did not complete in attempt ${this.journal.attempt}`
          : !this.matches(journaled.step.input_hash, hash, inputs)
            ? `${name} at position ${position} differs from attempt ${this.journal.attempt}'s ${journaled.row.name} (phase, owner or the envelope it starts from changed)`
            : null;
      if (why !== null) {
        this.diverge(identity, why);
        // Started and not completed there: it runs again from the checkpoint taken before it.
        const rerun =
          journaled === undefined && this.journal.checkpoints.has(position)
            ? {
                checkpoint: this.journal.checkpoints.get(position) ?? null,
                climbed: this.journal.rungs.get(position) ?? [],
                attempts: this.journal.attempts.get(position) ?? [],
              }
            : null;
        return this.livePhase(identity, hash, rerun);
      }
    }
    return journaled === undefined
      ? this.livePhase(identity, hash, null)
      : this.replayedPhase(identity, hash, journaled);
  }

  diverge(identity: PhaseIdentity, why: string): void {
    if (this.diverged) return;
    this.diverged = true;
    this.queue({
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

  private livePhase(identity: PhaseIdentity, hash: string, rerun: DurablePhase["rerun"]): DurablePhase {
    const counts = new Map<StepOp, number>();
    let phaseId = "";
    return {
      replays: null,
      rerun,
      step: async <T>(op: StepOp, inputs: unknown, body: () => Promise<T>): Promise<T> => {
        const n = (counts.get(op) ?? 0) + 1;
        counts.set(op, n);
        const result = await body();
        await this.write({
          key: stepKey(identity.position, identity.name, op, n),
          position: identity.position,
          phaseId,
          op,
          hash: this.hash(inputs),
          result: result ?? null,
        });
        return result;
      },
      checkpointed: async (checkpoint: PhaseCheckpoint | null) => {
        await this.write({
          key: stepKey(identity.position, identity.name, "checkpoint", 1),
          position: identity.position,
          phaseId,
          op: "checkpoint",
          hash: "",
          result: checkpoint,
        });
      },
      begin: (row: PhaseRow) => {
        phaseId = row.id;
      },
      completed: async (row: PhaseRow) => {
        await this.write(phaseStep(identity, hash, row));
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
      rerun: null,
      begin: () => {},
      checkpointed: async () => {},
      step: async <T>(op: StepOp, inputs: unknown): Promise<T> => {
        const n = (counts.get(op) ?? 0) + 1;
        counts.set(op, n);
        const key = stepKey(identity.position, identity.name, op, n);
        const recorded = byKey.get(key);
        if (recorded === undefined)
          throw new ReplayDiverged(
            `${identity.name}: ${op}#${n} is not in attempt ${this.journal.attempt}'s journal`,
          );
        const stepHash = this.hash(inputs);
        if (!this.matches(recorded.input_hash, stepHash, inputs))
          throw new ReplayDiverged(
            `${identity.name}: the inputs of ${op}#${n} changed since attempt ${this.journal.attempt} (${op === "call" ? "the rendered prompt or the envelope it is given" : "its arguments"})`,
          );
        const result = this.relocated(JSON.parse(recorded.result_json) as T);
        // Journaled again in this attempt's terms: its hash format, its folders.
        used.push({ ...recorded, input_hash: stepHash, result_json: JSON.stringify(result ?? null) });
        return result;
      },
      completed: async (row: PhaseRow) => {
        if (used.length < journaled.steps.length)
          throw new ReplayDiverged(
            `${identity.name}: the phase now makes ${used.length} of the ${journaled.steps.length} steps attempt ${this.journal.attempt} made`,
          );
        // Journaled again, as this attempt's: a later resume reads one attempt, not a chain of them.
        const again = used.map((step) => ({ ...step, phase_id: row.id }));
        again.push(this.row(phaseStep(identity, hash, row)));
        await this.trace.writeSteps(
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

  /** Journals `step`: in the events file at once, resolved once the db holds it. */
  private write(step: StepFields): Promise<void> {
    return this.trace.writeSteps([this.row(step)]);
  }

  /** Journals `step` in the file now and in the db with the next write (which everything later awaits). */
  private queue(step: StepFields): void {
    this.trace.queueSteps([this.row(step)]);
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
