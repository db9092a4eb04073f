import { constants } from "node:os";
import { terminateAllProcessGroups } from "../util/process-group.js";

/** The signals that stop a run: Ctrl-C, `kill`/`sssf kill`, a closed terminal. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** How long a run gets to finalize after a second signal before it closes its session itself and exits. */
export const FORCE_FINALIZE_MS = 5000;

/** An abort signal wired to SIGINT/SIGTERM/SIGHUP for the length of one run. */
export interface InterruptSignals {
  signal: AbortSignal;
  /** The first stop signal received, or null. */
  received(): NodeJS.Signals | null;
  /**
   * Call it when the run is over: removes the handlers and a pending forced finish. A signal after it
   * exits at once with 128 + the signal's number (the session is finalized by then).
   */
  dispose(): void;
}

/** Options of {@link interruptOnSignals}. */
export interface InterruptOptions {
  /**
   * The last resort after a second signal, when the run has not finalized within FORCE_FINALIZE_MS
   * (or at a third signal): closes the session; the process exits once it settles.
   */
  forceFinalize?: (signal: NodeJS.Signals) => unknown;
}

/** The conventional exit status after `signal`: 128 + its number (SIGHUP 129, SIGINT 130, SIGTERM 143). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/**
 * The first SIGINT/SIGTERM/SIGHUP aborts `signal`: agents are stopped (SIGTERM, then SIGKILL after a
 * grace) and the session is finalized. A second one means "now": every agent group and marked
 * process is killed without grace, and the run still finalizes; should it not within
 * FORCE_FINALIZE_MS, or at a third signal, `forceFinalize` closes the session and the process exits
 * with the first signal's status. Never throws.
 */
export function interruptOnSignals(options: InterruptOptions = {}): InterruptSignals {
  const controller = new AbortController();
  let first: NodeJS.Signals | null = null;
  let count = 0;
  let forceTimer: NodeJS.Timeout | undefined;
  const force = (signal: NodeJS.Signals) => {
    clearTimeout(forceTimer);
    const exit = () => process.exit(signalExitCode(first ?? signal));
    void Promise.resolve()
      .then(() => options.forceFinalize?.(signal))
      .then(exit, exit);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    count += 1;
    if (count === 1) {
      first = signal;
      process.stderr.write(`sssf: ${signal} received: stopping agents and finalizing the session\n`);
      controller.abort(signal);
      return;
    }
    if (count === 2) {
      process.stderr.write(`sssf: second ${signal}: killing agents now; finalizing the session\n`);
      void terminateAllProcessGroups(0);
      forceTimer = setTimeout(() => force(signal), FORCE_FINALIZE_MS);
      return;
    }
    process.stderr.write(`sssf: ${signal} again: closing the session as interrupted and exiting\n`);
    force(signal);
  };
  // Once the run is over (finalized), a late signal just ends the exit with the conventional status.
  const onLateSignal = (signal: NodeJS.Signals) => process.exit(signalExitCode(first ?? signal));
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  return {
    signal: controller.signal,
    received: () => first,
    dispose() {
      clearTimeout(forceTimer);
      for (const name of STOP_SIGNALS) {
        process.off(name, onSignal);
        process.once(name, onLateSignal);
      }
    },
  };
}
