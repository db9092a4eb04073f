/**
 * What one replay learns while the workflow runs: which recorded phase each position answers from,
 * the code steps answered or re-run, and where (and why) it stopped.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { RecordedPhase, RecordedRun } from "./replay-record.js";

/** Where a replay stopped: the phase (and send) the record cannot answer, and why. */
export interface ReplayStop {
  position: number;
  phase: string;
  /** The agent whose send had no recorded reply; null when a whole phase or a code step did not. */
  agent: string | null;
  /** 1-based send of that agent within the phase; null when not a send. */
  send: number | null;
  why: string;
  /** True when the current code asks for something the record never did (a send, a phase, a step). */
  not_in_record: boolean;
}

/** A code step of the replay: its recorded result, and what re-running it gave (`--rerun-code`). */
export interface CodeStep {
  position: number;
  key: string;
  recorded: unknown;
  rerun?: unknown;
}

/** The phase a send belongs to, carried through the call's async work. */
export interface SendSlot {
  position: number;
  phase: string;
}

export class ReplayState {
  readonly slot = new AsyncLocalStorage<SendSlot>();
  readonly codeSteps: CodeStep[] = [];
  /** Positions the replay started, with the phase name it ran under. */
  readonly started = new Map<number, string>();
  stop: ReplayStop | null = null;
  /** The record's `context_handoff/` files were copied into the replay's. */
  handedOver = false;
  private readonly sends = new Map<string, number>();
  readonly controller = new AbortController();

  constructor(readonly record: RecordedRun) {}

  phaseAt(position: number): RecordedPhase | undefined {
    return this.record.phases.get(position);
  }

  /** Counts the next send of `agent` in the phase at `position` (1-based). */
  nextSend(position: number, agent: string): number {
    const key = `${position}\u0000${agent}`;
    const n = (this.sends.get(key) ?? 0) + 1;
    this.sends.set(key, n);
    return n;
  }

  /** Records the first stop and aborts the run: nothing after it is answered. */
  stopAt(stop: ReplayStop): void {
    if (this.stop !== null) return;
    this.stop = stop;
    this.controller.abort(new Error(`replay stopped: ${stop.why}`));
  }
}
