/** The options and counters of a `Tracer` (tracer.ts), and its exit hook. */

import type { TraceRecord } from "./events.js";
import type { SessionFence } from "./session-fence.js";
import type { TraceStore } from "./store.js";

/** Options of a `Tracer`. The tracer never closes `store`. */
export interface TracerOptions {
  store: TraceStore;
  /** The session's `events.jsonl`; created (with its directory) when missing, always appended to. */
  eventsFile: string;
  /** Delay between the first queued record and its append to the events file (default 10 ms). */
  flushIntervalMs?: number;
  /**
   * Delay between the first record in the file and its transaction (default: 1 s on PostgreSQL, where a
   * fleet's runs share one server and a trickle of events would cost one transaction each; on SQLite
   * `flushIntervalMs`). An explicit `flush()` (a journaled step, a phase's end) or `close()` stores at once.
   */
  storeIntervalMs?: number;
  /**
   * Queue length that triggers an immediate flush (default 1000: an agent flooding tool calls fills it
   * long before the interval). The file append holds the event loop while it writes its records, so the
   * agent's pipe is read that much less often; larger batches made the flood slower and its memory higher.
   */
  maxBatch?: number;
  /**
   * Called with each batch of records (redacted) once it is in the events file, in order: a consumer
   * mirroring the trace elsewhere (the OpenTelemetry export, src/otel/). What it throws is ignored.
   */
  onAppended?: (records: readonly TraceRecord[]) => void;
  /** Called after each committed transaction with its records (for latency measurements). */
  onCommit?: (records: readonly TraceRecord[]) => void;
  /**
   * Write to the db only while the session's row names this owner (a cluster attempt,
   * `session-fence.ts`): checked inside every batch's transaction, and once a second while idle. Once
   * fenced, records go to the events file only.
   */
  fence?: SessionFence;
}

/** Counters of a `Tracer`: records stored in the db, flushes that stored them, slowest flush. */
export interface TracerStats {
  readonly records: number;
  readonly batches: number;
  readonly maxBatchMs: number;
}

/** How long a PostgreSQL trace batches records before one transaction stores them. */
export const POSTGRES_STORE_INTERVAL_MS = 1000;

/** Open tracers: at the process's exit their queued records still reach the events files. */
const open = new Set<{ appendAtExit(): void }>();
let exitHooked = false;

/** Counts `tracer` as open until {@link untrackTracer}: a process exit appends its queue to its file. */
export function trackOpenTracer(tracer: { appendAtExit(): void }): void {
  open.add(tracer);
  if (exitHooked) return;
  exitHooked = true;
  process.on("exit", () => {
    for (const one of open) one.appendAtExit();
  });
}

export function untrackTracer(tracer: { appendAtExit(): void }): void {
  open.delete(tracer);
}
