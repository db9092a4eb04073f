import { AsyncLocalStorage } from "node:async_hooks";
import { SssfError } from "../errors/sssf-error.js";
import type { PhaseRow } from "../trace/events.js";

/** The last accepted envelope as one branch of the run sees it; `set` once the branch produced one. */
interface EnvelopeSlot {
  value: object | null;
  set: boolean;
}

/** What the code running now belongs to: its branch's envelope slot and the phases it runs inside. */
interface Scope {
  slot: EnvelopeSlot;
  parallel: boolean;
  phaseIds: readonly string[];
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * The run's concurrency state, followed across `await`s with AsyncLocalStorage: each branch of
 * `run.parallel` has its own default `previous` (the envelope from before the group), the join hands
 * on the last branch's in order, and an agent runs one phase and one call at a time.
 */
export class RunScope {
  private readonly storage = new AsyncLocalStorage<Scope>();
  private readonly root: Scope;
  /** Agent name → the phases it runs now (more than one only when nested in each other). */
  private readonly running = new Map<string, Pick<PhaseRow, "id" | "name" | "number">[]>();
  private readonly calling = new Set<string>();

  constructor(lastEnvelope: object | null) {
    this.root = { slot: { value: lastEnvelope, set: false }, parallel: false, phaseIds: [] };
  }

  private get current(): Scope {
    return this.storage.getStore() ?? this.root;
  }

  /** The default `previous` here: inside a parallel branch, the branch's own last envelope. */
  get lastEnvelope(): object | null {
    return this.current.slot.value;
  }

  set lastEnvelope(envelope: object | null) {
    const { slot } = this.current;
    slot.value = envelope;
    slot.set = true;
  }

  /** True inside a branch of `run.parallel` (at any depth). */
  get inParallel(): boolean {
    return this.current.parallel;
  }

  /** Runs a phase's body with that phase as the innermost one enclosing the code. */
  inPhase<R>(phaseId: string, body: () => R): R {
    const scope = this.current;
    return this.storage.run({ ...scope, phaseIds: [...scope.phaseIds, phaseId] }, body);
  }

  /**
   * Throws SssfError("usage") when `agent` already runs a phase this code is not nested in: one session
   * cannot take two sends at once, so phases running in parallel need different owners.
   */
  assertAgentFree(agent: string, phaseName: string): void {
    const enclosing = this.current.phaseIds;
    const busy = (this.running.get(agent) ?? []).find((p) => !enclosing.includes(p.id));
    if (busy) {
      throw new SssfError(
        "usage",
        `phase ${phaseName}: agent ${agent} is already running phase ${pad(busy.number)} ${busy.name}; one agent session cannot take two sends at once, so phases running in parallel need different owners`,
      );
    }
  }

  /** Marks `agent` as running `phase` until the returned release is called. Never throws. */
  claimAgent(agent: string, phase: PhaseRow): () => void {
    const entry = { id: phase.id, name: phase.name, number: phase.number };
    this.running.set(agent, [...(this.running.get(agent) ?? []), entry]);
    return () => {
      this.running.set(
        agent,
        (this.running.get(agent) ?? []).filter((p) => p !== entry),
      );
    };
  }

  /**
   * Runs `work` as the one call of `agent` in flight; rejects with SssfError("usage") without running
   * it when another call of that agent is (two `phase.call`s at once, or a nested phase of the same owner).
   */
  async whileCalling<R>(agent: string, phaseName: string, work: () => Promise<R>): Promise<R> {
    if (this.calling.has(agent)) {
      throw new SssfError(
        "usage",
        `phase ${phaseName}: agent ${agent} is already answering a call; one agent session cannot take two sends at once`,
      );
    }
    this.calling.add(agent);
    try {
      return await work();
    } finally {
      this.calling.delete(agent);
    }
  }

  /**
   * Starts every branch at once (in order, so their first phases are numbered in order), waits until all
   * have settled, then sets the enclosing last envelope to the last one produced by the last branch in
   * order that produced any, and resolves with the results in order or rejects with the first
   * branch's (in order) error. A branch that throws synchronously counts as a rejected one.
   */
  async parallel(branches: readonly (() => Promise<unknown>)[]): Promise<unknown[]> {
    const outer = this.current;
    const slots: EnvelopeSlot[] = branches.map(() => ({ value: outer.slot.value, set: false }));
    const settled = await Promise.allSettled(
      branches.map((branch, i) =>
        this.storage.run(
          { slot: slots[i] as EnvelopeSlot, parallel: true, phaseIds: outer.phaseIds },
          () => new Promise<unknown>((resolve) => resolve(branch())),
        ),
      ),
    );
    const last = slots.findLast((slot) => slot.set);
    if (last) {
      outer.slot.value = last.value;
      outer.slot.set = true;
    }
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failure) throw failure.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
  }
}
