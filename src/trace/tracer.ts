import { SssfError } from "../errors/index.js";
import { createBatchUpserter } from "./batch-upsert.js";
import { createUpserter } from "./database.js";
import { isUnavailable } from "./db-unavailable.js";
import type { TraceRecord } from "./events.js";
import { EventsFile } from "./events-file.js";
import { redactRecord } from "./redact-record.js";
import { checkSessionOwner, FencedError, type SessionFence } from "./session-fence.js";
import { sqliteErrorCode, type TraceDb, type TransactionFunction } from "./sqlite.js";

/** Options of a {@link Tracer}. The tracer never closes `db`. */
export interface TracerOptions {
  db: TraceDb;
  /** The session's `events.jsonl`; created (with its directory) when missing, always appended to. */
  eventsFile: string;
  /** Delay between the first queued record and its flush (default 10 ms). */
  flushIntervalMs?: number;
  /**
   * Queue length that triggers an immediate flush (default 1000: an agent flooding tool calls fills it
   * long before the interval). A flush holds the event loop while it files its records, so the agent's
   * pipe is read that much less often; with 4000 records a hold was about 8 ms, the agent's unread
   * output piled up in its own heap, and the flood's rate was 5 % lower, its memory higher.
   */
  maxBatch?: number;
  /** Called after each committed transaction with its records (for latency measurements). */
  onCommit?: (records: readonly TraceRecord[]) => void;
  /**
   * Write to the db only while the session's row names this owner (a cluster attempt,
   * `session-fence.ts`): checked inside every batch's transaction, and once a second while idle. Once
   * fenced, records go to the events file only.
   */
  fence?: SessionFence;
}

/** How often a fenced tracer looks at its session's owner while it has nothing to write. */
const FENCE_CHECK_MS = 1000;

/** Counters of a {@link Tracer}: records stored in the db, flushes that stored them, slowest flush. */
export interface TracerStats {
  readonly records: number;
  readonly batches: number;
  readonly maxBatchMs: number;
}

interface EachResult {
  stored: number;
  firstError: unknown;
}

/** A busy or locked SQLite, or a PostgreSQL out of reach: the records wait for a later flush. */
function isTransient(error: unknown): boolean {
  if (isUnavailable(error)) return true;
  const code = sqliteErrorCode(error);
  return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** How long `close()` keeps retrying records a database out of reach could not take yet. */
const CLOSE_RETRY_MS = 30_000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Writes trace records to a session's `events.jsonl` (the raw record) and then to the trace db (its
 * queryable mirror), in batches: one append and one transaction per flush. Secrets are redacted once
 * (`redactRecord`: every free-text and JSON column), before either write, so file and db hold the same rows.
 * Contract: `write` never throws, except after `close()`. A batch the db refuses as busy or locked stays
 * queued, in order, for the next flush; failures of timer- or size-triggered flushes are kept and thrown by
 * the next explicit `flush()` or `close()`. Records already appended to the file are never appended twice.
 * @example
 * const tracer = new Tracer({ db, eventsFile: "adws/adw_data/sessions/a1b2c3d4/events.jsonl" });
 * tracer.write({ table: "events", row });
 * tracer.close();
 */
export class Tracer {
  readonly #eventsFile: string;
  readonly #flushIntervalMs: number;
  readonly #maxBatch: number;
  readonly #onCommit: ((records: readonly TraceRecord[]) => void) | undefined;
  readonly #insertBatch: TransactionFunction<(records: TraceRecord[]) => void>;
  readonly #insertEach: TransactionFunction<(records: TraceRecord[]) => EachResult>;
  readonly #counters = { records: 0, batches: 0, maxBatchMs: 0 };
  readonly #file: EventsFile;
  #queue: TraceRecord[] = [];
  #pendingDb: TraceRecord[] = [];
  #timer: NodeJS.Timeout | null = null;
  #deferredError: unknown = undefined;
  #lastBusyError: unknown = undefined;
  readonly #db: TraceDb;
  readonly #fence: SessionFence | undefined;
  /** Another process owns the session: nothing more goes to the db. */
  #fenced = false;
  #fenceTimer: NodeJS.Timeout | null = null;

  constructor(options: TracerOptions) {
    this.#eventsFile = options.eventsFile;
    this.#flushIntervalMs = options.flushIntervalMs ?? 10;
    this.#maxBatch = Math.max(1, options.maxBatch ?? 1000);
    this.#onCommit = options.onCommit;
    const fence = options.fence;
    this.#fence = fence;
    const upsert = createUpserter(options.db);
    const batchUpsert = createBatchUpserter(options.db);
    // Multi-row statements; the one-row upserts below store what they can after a failure.
    this.#insertBatch = options.db.transaction(
      fence === undefined
        ? batchUpsert
        : (records: TraceRecord[]) => {
            checkSessionOwner(options.db, fence, true);
            batchUpsert(records);
          },
    );
    // Fallback after a non-transient failure: store every record that can be stored, report the first error.
    // Each in its savepoint: on PostgreSQL a failed statement would abort the whole transaction.
    const upsertOne = options.db.transaction(upsert);
    this.#insertEach = options.db.transaction((records: TraceRecord[]) => {
      if (fence !== undefined) checkSessionOwner(options.db, fence, true);
      const result: EachResult = { stored: 0, firstError: undefined };
      for (const record of records) {
        try {
          upsertOne(record);
          result.stored += 1;
        } catch (error) {
          result.firstError ??= error;
        }
      }
      return result;
    });
    this.#file = new EventsFile(this.#eventsFile);
    const db = options.db;
    this.#db = db;
    if (fence !== undefined) {
      this.#fenceTimer = setInterval(() => this.#lookAtOwner(), FENCE_CHECK_MS);
      this.#fenceTimer.unref();
    }
  }

  /** True once another process owns the session (see {@link TracerOptions.fence}). */
  get fenced(): boolean {
    return this.#fenced;
  }

  /**
   * Looks at the session's owner now (a fenced tracer; others answer true at once): true while it names
   * this tracer's owner or cannot be read (a database out of reach fences nobody).
   */
  checkFence(): boolean {
    this.#lookAtOwner();
    return !this.#fenced;
  }

  /** A snapshot of the counters. */
  get stats(): TracerStats {
    return { ...this.#counters };
  }

  /**
   * Queues `record` (redacted, copied) and schedules a flush, or flushes now when the queue is full.
   * Throws SssfError("internal") only when the tracer is closed.
   */
  write(record: TraceRecord): void {
    if (!this.#file.isOpen) {
      throw new SssfError(
        "internal",
        `Trace record written after the tracer of ${this.#eventsFile} was closed.`,
      );
    }
    this.#queue.push(redactRecord(record));
    if (this.#queue.length >= this.#maxBatch) {
      this.#flushKeepingErrors();
    } else {
      this.#schedule();
    }
  }

  /**
   * Appends every queued record to the events file (one write), then upserts the file's not yet stored
   * records into the db in one transaction. Synchronous. Throws a deferred error of an earlier automatic
   * flush, a file system error (the unwritten bytes are retried first next time), or a non-transient db
   * error (the batch's other records are still stored). A busy or locked db is not an error here.
   */
  flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    let thrown: unknown;
    let failed = false;
    try {
      this.#flushNow();
    } catch (error) {
      thrown = error;
      failed = true;
    }
    const deferred = this.#deferredError;
    this.#deferredError = undefined;
    if (deferred !== undefined) throw deferred;
    if (failed) throw thrown;
  }

  /**
   * Flushes and closes the events file. Throws what `flush()` throws, and the last busy error when records
   * could not reach the db (they are in the file; a rebuild restores them). Idempotent; never closes the db.
   */
  close(): void {
    if (!this.#file.isOpen) return;
    try {
      this.flush();
      // A database out of reach (a PostgreSQL restarting) gets a while to come back before the run ends.
      const until = Date.now() + CLOSE_RETRY_MS;
      while (this.#pendingDb.length > 0 && isUnavailable(this.#lastBusyError) && Date.now() < until) {
        sleepSync(250);
        this.flush();
      }
      if (this.#pendingDb.length > 0) {
        throw (
          this.#lastBusyError ?? new SssfError("internal", `Trace records of ${this.#eventsFile} not stored.`)
        );
      }
    } finally {
      if (this.#timer !== null) clearTimeout(this.#timer);
      this.#timer = null;
      if (this.#fenceTimer !== null) clearInterval(this.#fenceTimer);
      this.#fenceTimer = null;
      this.#file.close();
    }
  }

  #schedule(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#flushKeepingErrors();
    }, this.#flushIntervalMs);
    this.#timer.unref();
  }

  #flushKeepingErrors(): void {
    try {
      this.#flushNow();
    } catch (error) {
      this.#deferredError ??= error;
    }
  }

  #flushNow(): void {
    if (!this.#file.isOpen) return;
    const started = performance.now();
    const queued = this.#queue;
    this.#queue = [];
    const appended = this.#file.append(queued);
    if (this.#fenced) return;
    this.#afterFile(appended.records);
    if (this.#pendingDb.length === 0) return;
    const batch = this.#pendingDb;
    let failure: unknown;
    try {
      this.#insertBatch.immediate(batch);
      this.#pendingDb = [];
      this.#record(batch.length, started);
      this.#onCommit?.(batch);
      return;
    } catch (error) {
      if (this.#keepForRetry(error) || this.#fencedBy(error)) return;
      failure = error;
    }
    let result: EachResult;
    try {
      result = this.#insertEach.immediate(batch);
    } catch (error) {
      if (this.#keepForRetry(error) || this.#fencedBy(error)) return;
      this.#pendingDb = [];
      throw error;
    }
    this.#pendingDb = [];
    this.#record(result.stored, started);
    throw result.firstError ?? failure;
  }

  /** True (and a retry scheduled) when `error` is a busy or locked db: the pending records stay queued. */
  #keepForRetry(error: unknown): boolean {
    if (!isTransient(error)) return false;
    this.#lastBusyError = error;
    this.#schedule();
    return true;
  }

  /** True when `error` says another process owns the session: the db gets nothing more from here. */
  #fencedBy(error: unknown): boolean {
    if (!(error instanceof FencedError)) return false;
    this.#pendingDb = [];
    if (!this.#fenced) {
      this.#fenced = true;
      if (this.#fenceTimer !== null) clearInterval(this.#fenceTimer);
      this.#fenceTimer = null;
      const fence = this.#fence;
      // After the flush that found it: the listener may write (to the file) and stop the run.
      if (fence !== undefined) queueMicrotask(() => fence.onFenced(error.holder));
    }
    return true;
  }

  /** The idle check of a fenced tracer; a busy or unreachable db is looked at again next time. */
  #lookAtOwner(): void {
    const fence = this.#fence;
    if (fence === undefined || this.#fenced || !this.#file.isOpen) return;
    try {
      checkSessionOwner(this.#db, fence, false);
    } catch (error) {
      this.#fencedBy(error);
    }
  }

  /** `records` are in the file: they are now owed to the db. */
  #afterFile(records: TraceRecord[]): void {
    if (this.#pendingDb.length === 0) this.#pendingDb = records;
    else for (const record of records) this.#pendingDb.push(record);
  }

  #record(records: number, started: number): void {
    const elapsed = performance.now() - started;
    this.#counters.records += records;
    this.#counters.batches += 1;
    if (elapsed > this.#counters.maxBatchMs) this.#counters.maxBatchMs = elapsed;
  }
}
