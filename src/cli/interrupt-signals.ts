import { terminateAllProcessGroups } from "../util/process-group.js";

/** An abort signal wired to SIGINT/SIGTERM for the length of one run. */
export interface InterruptSignals {
  signal: AbortSignal;
  /** Removes the handlers; call it when the run is over. */
  dispose(): void;
}

/**
 * The first SIGINT/SIGTERM aborts `signal` (agents are stopped and the session is finalized); a second
 * one means "now": every agent group is killed without grace and the process exits 1. Never throws.
 */
export function interruptOnSignals(): InterruptSignals {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.stderr.write(`sssf: second ${signal}: killing agents and exiting without finalizing\n`);
      void terminateAllProcessGroups(0).finally(() => process.exit(1));
      return;
    }
    process.stderr.write(`sssf: ${signal} received: stopping agents and finalizing the session\n`);
    controller.abort(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
