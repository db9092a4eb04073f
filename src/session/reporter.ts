import type { ToolCall } from "../runtimes/runtime.js";
import type { PhaseRow, SessionRow } from "../trace/events.js";

/** What a run tells the person watching it. The CLI prints lines; tests and the library stay quiet. */
export interface RunReporter {
  sessionStarted(session: SessionRow, sessionDir: string, joined: boolean): void;
  phaseStarted(phase: PhaseRow): void;
  phaseEnded(phase: PhaseRow): void;
  /** A resume answered a completed phase from the journal: no agent called, nothing redone. */
  phaseReplayed?(phase: PhaseRow): void;
  toolCall(phase: PhaseRow, call: ToolCall): void;
  /** A line about the run; `phase` is the phase it concerns, when one does (parallel phases interleave). */
  log(message: string, phase?: PhaseRow): void;
  finished(session: SessionRow, phases: PhaseRow[]): void;
}

export const silentReporter: RunReporter = {
  sessionStarted() {},
  phaseStarted() {},
  phaseEnded() {},
  toolCall() {},
  log() {},
  finished() {},
};
