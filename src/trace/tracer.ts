import path from "node:path";
import { SssfError } from "../errors/index.js";
import { createBatchUpserter } from "./batch-upsert.js";
import { createUpserter } from "./database.js";
import { isUnavailable } from "./db-unavailable.js";
import type { TraceRecord } from "./events.js";
import { EventsFile, parseRecordLines } from "./events-file.js";
import { redactRecord } from "./redact-record.js";
import { checkSessionOwner, FencedError, type SessionFence } from "./session-fence.js";
import { BUSY_TIMEOUT_MS, sqliteErrorCode, type TraceDb, type TransactionFunction } from "./sqlite.js";
import { type BatchAnswer, encodeBatch, WriterThread } from "./writer-thread.js";

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
   * Where the inserts run: `"auto"` (default) moves them to a thread of their own once one flush holds
   * {@link THREAD_MIN_BATCH} records (a flooding agent; never on PostgreSQL, an in-memory or read-only
   * database, or with `SSSF_TRACE_THREAD=0`); `"never"` keeps them here; `"always"` starts the thread
   * with the first flush (tests).
   */
  thread?: "auto" | "never" | "always";
  /**
   * Write to the db only while the session's row names this owner (a cluster attempt,
   * `session-fence.ts`): checked inside every batch's transaction, and once a second while idle. Once
   * fenced, records go to the events file only. Keeps the inserts on the caller's thread.
   */
  fence?: SessionFence;
}

/** How often a fenced tracer looks at its session's owner while it has nothing to write. */
const FENCE_CHECK_MS = 1000;

/** Records in one flush that move a tracer's inserts to their thread (a flood, not a run's trickle). */
export const THREAD_MIN_BATCH = 500;

/** Batches handed to the thread and not yet answered before `write` waits for it (bounds memory). */
const MAX_IN_FLIGHT = 8;

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
  /** The database file the thread would write, or null when this tracer's inserts stay here. */
  #threadFile: string | null;
  readonly #threadAlways: boolean;
  #thread: WriterThread | null = null;
  readonly #db: TraceDb;
  /**
   * Batches the thread holds, by sequence number, in order: in the file, owed to the db. Kept as their
   * lines' bytes (outside the JS heap: nothing for the collector to trace); the records only for
   * `onCommit`, or when they never reached the file as bytes (held by a busy database).
   */
  readonly #owed = new Map<
    number,
    { lines: Buffer | null; records: TraceRecord[] | null; postedAt: number }
  >();
  /** The thread's first batch is held by a busy database. */
  #blocked = false;
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
    const mode =
      fence !== undefined
        ? "never"
        : (options.thread ?? (process.env.SSSF_TRACE_THREAD === "0" ? "never" : "auto"));
    const db = options.db;
    this.#db = db;
    const fileBacked =
      db.dialect === undefined &&
      !db.readonly &&
      db.name !== "" &&
      db.name !== ":memory:" &&
      !db.name.startsWith("file:");
    this.#threadFile = mode !== "never" && fileBacked ? path.resolve(db.name) : null;
    this.#threadAlways = mode === "always";
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
      if (this.#thread !== null) {
        // An explicit flush tries a busy database again now, as the caller's thread would.
        if (this.#blocked) {
          this.#blocked = false;
          this.#thread.retry();
        }
        this.#thread.waitFor(() => this.#owed.size === 0 || this.#blocked);
        // A thread that could not write gave its batches back: store them here.
        if (this.#thread === null && this.#pendingDb.length > 0) this.#flushNow();
      }
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
      if (this.#pendingDb.length > 0 || this.#owed.size > 0) {
        throw (
          this.#lastBusyError ?? new SssfError("internal", `Trace records of ${this.#eventsFile} not stored.`)
        );
      }
    } finally {
      if (this.#timer !== null) clearTimeout(this.#timer);
      this.#timer = null;
      if (this.#fenceTimer !== null) clearInterval(this.#fenceTimer);
      this.#fenceTimer = null;
      this.#thread?.close();
      this.#thread = null;
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
    if (this.#thread === null && this.#threadFile !== null) {
      const size = appended.records.length + this.#pendingDb.length;
      if (size > 0 && (this.#threadAlways || size >= THREAD_MIN_BATCH)) this.#startThread(this.#threadFile);
    }
    if (this.#thread !== null) {
      this.#handOver(appended.records, appended.lines, started);
      return;
    }
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

  #startThread(file: string): void {
    const busyTimeoutMs = Number(this.#db.pragma("busy_timeout", { simple: true }) ?? BUSY_TIMEOUT_MS);
    this.#thread = new WriterThread(file, (answer) => this.#answered(answer), { busyTimeoutMs });
    // Records a busy database held here go first.
    if (this.#pendingDb.length > 0) {
      const held = this.#pendingDb;
      this.#pendingDb = [];
      this.#handOver(held, null, performance.now());
    }
  }

  /** Gives the thread `records` (in the file as `lines`); waits while it holds too many batches. */
  #handOver(records: TraceRecord[], lines: Buffer | null, started: number): void {
    const thread = this.#thread as WriterThread;
    if (records.length > 0)
      this.#owed.set(thread.post(encodeBatch(records)), {
        lines: lines !== null && this.#onCommit === undefined ? lines : null,
        records: lines !== null && this.#onCommit === undefined ? null : records,
        postedAt: started,
      });
    if (this.#owed.size >= MAX_IN_FLIGHT)
      thread.waitFor(() => this.#owed.size < MAX_IN_FLIGHT || this.#blocked || this.#thread === null);
  }

  /** The thread's answer about one batch. */
  #answered(answer: BatchAnswer): void {
    if (answer.kind === "busy") {
      this.#blocked = true;
      this.#lastBusyError = answer.error;
      return;
    }
    this.#blocked = false;
    if (answer.kind === "fatal") {
      // The thread cannot write: every batch it holds comes back here, in order, for the next flush.
      const back = [...this.#owed.values()].flatMap(
        (batch) => batch.records ?? parseRecordLines((batch.lines as Buffer).toString("utf8")),
      );
      this.#owed.clear();
      this.#pendingDb = back.concat(this.#pendingDb);
      this.#thread?.close();
      this.#thread = null;
      this.#threadFile = null;
      this.#schedule();
      return;
    }
    const batch = this.#owed.get(answer.seq);
    this.#owed.delete(answer.seq);
    if (batch === undefined) return;
    this.#record(answer.stored, batch.postedAt);
    if (answer.error !== undefined) this.#deferredError ??= answer.error;
    else if (batch.records !== null) this.#onCommit?.(batch.records);
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
