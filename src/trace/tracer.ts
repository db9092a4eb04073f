import { setTimeout as sleep } from "node:timers/promises";
import { SssfError } from "../errors/index.js";
import { isUnavailable } from "./db-unavailable.js";
import type { TraceRecord } from "./events.js";
import { EventsFile } from "./events-file.js";
import { redactRecord } from "./redact-record.js";
import { checkSessionOwner, FencedError } from "./session-fence.js";
import { sqliteErrorCode } from "./sqlite/driver.js";
import type { TraceSql, TraceStore } from "./store.js";
import {
  POSTGRES_STORE_INTERVAL_MS,
  type TracerOptions,
  type TracerStats,
  trackOpenTracer,
  untrackTracer,
} from "./tracer-options.js";

export type { TracerOptions, TracerStats } from "./tracer-options.js";

/** How often a fenced tracer looks at its session's owner while it has nothing to write. */
const FENCE_CHECK_MS = 1000;

/** A busy or locked SQLite, or a PostgreSQL out of reach: the records wait for a later flush. */
function isTransient(error: unknown): boolean {
  if (isUnavailable(error)) return true;
  const code = sqliteErrorCode(error);
  return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** How long `close()` keeps retrying records a database out of reach could not take yet. */
const CLOSE_RETRY_MS = 30_000;

/**
 * Writes trace records to a session's `events.jsonl` (the raw record) and then to the trace store (its
 * queryable mirror), in batches: one append, synchronous, as soon as a batch is due, then one store
 * transaction, asynchronous, per batch. Secrets are redacted once (`redactRecord`: every free-text and
 * JSON column), before either write, so file and db hold the same rows.
 * Contract: `write` never throws, except after `close()`. A batch the db refuses as busy, locked or out of
 * reach stays queued, in order, for the next flush; failures of timer- or size-triggered flushes are kept
 * and thrown by the next explicit `flush()` or `close()`. Records already appended to the file are never
 * appended twice.
 * @example
 * const tracer = new Tracer({ store, eventsFile: "adws/adw_data/sessions/a1b2c3d4/events.jsonl" });
 * tracer.write({ table: "events", row });
 * await tracer.close();
 */
export class Tracer {
  readonly #eventsFile: string;
  readonly #flushIntervalMs: number;
  readonly #storeIntervalMs: number;
  readonly #maxBatch: number;
  readonly #onCommit: ((records: readonly TraceRecord[]) => void) | undefined;
  readonly #onAppended: ((records: readonly TraceRecord[]) => void) | undefined;
  readonly #counters = { records: 0, batches: 0, maxBatchMs: 0 };
  readonly #file: EventsFile;
  readonly #store: TraceStore;
  readonly #fence: TracerOptions["fence"];
  /** Redacted records not yet in the file. */
  #queue: TraceRecord[] = [];
  /** Records in the file the db has not taken yet, in order. */
  #pendingDb: TraceRecord[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** The batched store of what is in the file (PostgreSQL): set while records wait for it. */
  #storeTimer: NodeJS.Timeout | null = null;
  #deferredError: unknown = undefined;
  #lastBusyError: unknown = undefined;
  /** The store's writes, one after another: each link writes what is pending when it starts. */
  #writes: Promise<void> = Promise.resolve();
  #closing: Promise<void> | null = null;
  /** Another process owns the session: nothing more goes to the db. */
  #fenced = false;
  #fenceTimer: NodeJS.Timeout | null = null;

  constructor(options: TracerOptions) {
    this.#eventsFile = options.eventsFile;
    this.#flushIntervalMs = options.flushIntervalMs ?? 10;
    this.#maxBatch = Math.max(1, options.maxBatch ?? 1000);
    this.#onCommit = options.onCommit;
    this.#onAppended = options.onAppended;
    this.#store = options.store;
    this.#storeIntervalMs =
      options.storeIntervalMs ??
      (this.#store.dialect === "postgres" ? POSTGRES_STORE_INTERVAL_MS : this.#flushIntervalMs);
    this.#fence = options.fence;
    this.#file = new EventsFile(this.#eventsFile);
    trackOpenTracer(this);
    if (this.#fence !== undefined) {
      this.#fenceTimer = setInterval(() => void this.#lookAtOwner(), FENCE_CHECK_MS);
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
  async checkFence(): Promise<boolean> {
    await this.#lookAtOwner();
    return !this.#fenced;
  }

  /** A snapshot of the counters. */
  get stats(): TracerStats {
    return { ...this.#counters };
  }

  /**
   * Queues `record` (redacted, copied) and schedules a flush, or flushes now when the queue is full
   * (the file at once, the db in the background). Throws SssfError("internal") only when closed.
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
   * Appends every queued record to the events file (one write, before this returns its promise), then
   * stores the file's records the db has not taken yet, and settles when they are committed. Rejects
   * with a deferred error of an earlier automatic flush, a file system error (the unwritten bytes are
   * retried first next time), or a non-transient db error (the batch's other records are still stored).
   * A busy, locked or unreachable db is not an error here: its records wait for the next flush.
   */
  flush(): Promise<void> {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#storeTimer !== null) {
      clearTimeout(this.#storeTimer);
      this.#storeTimer = null;
    }
    let appended = true;
    let thrown: unknown;
    try {
      this.#appendQueued();
    } catch (error) {
      appended = false;
      thrown = error;
    }
    const stored = appended ? this.#storePending() : Promise.resolve();
    return stored.then(
      () => this.#afterFlush(appended, thrown),
      (error: unknown) => this.#afterFlush(false, error),
    );
  }

  /**
   * Flushes and closes the events file. Rejects with what `flush()` rejects with, and with the last busy
   * error when records could not reach the db (they are in the file; a rebuild restores them); a db out
   * of reach gets 30 s to come back first. Idempotent; never closes the store.
   */
  close(): Promise<void> {
    // Closed: nothing more to report. Closing: the callers share its outcome.
    if (!this.#file.isOpen) return Promise.resolve();
    if (this.#closing !== null) return this.#closing;
    this.#closing = this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    try {
      await this.flush();
      // A database out of reach (a PostgreSQL restarting) gets a while to come back before the run ends.
      const until = Date.now() + CLOSE_RETRY_MS;
      while (this.#pendingDb.length > 0 && isUnavailable(this.#lastBusyError) && Date.now() < until) {
        await sleep(250);
        await this.flush();
      }
      if (this.#pendingDb.length > 0 && !this.#fenced) {
        throw (
          this.#lastBusyError ?? new SssfError("internal", `Trace records of ${this.#eventsFile} not stored.`)
        );
      }
    } finally {
      untrackTracer(this);
      if (this.#timer !== null) clearTimeout(this.#timer);
      this.#timer = null;
      if (this.#storeTimer !== null) clearTimeout(this.#storeTimer);
      this.#storeTimer = null;
      if (this.#fenceTimer !== null) clearInterval(this.#fenceTimer);
      this.#fenceTimer = null;
      this.#file.close();
    }
  }

  #afterFlush(ok: boolean, thrown: unknown): void {
    const deferred = this.#deferredError;
    this.#deferredError = undefined;
    if (deferred !== undefined) throw deferred;
    if (!ok) throw thrown;
  }

  #schedule(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#flushKeepingErrors();
    }, this.#flushIntervalMs);
    this.#timer.unref();
  }

  /**
   * A flush of the timer or a full queue: the file now, the db now or within `storeIntervalMs` (a full
   * batch at once). Its failure waits for the next explicit flush.
   */
  #flushKeepingErrors(): void {
    try {
      this.#appendQueued();
    } catch (error) {
      this.#deferredError ??= error;
      return;
    }
    if (this.#storeIntervalMs <= this.#flushIntervalMs || this.#pendingDb.length >= this.#maxBatch)
      this.#storeKeepingErrors();
    else this.#scheduleStore();
  }

  #storeKeepingErrors(): void {
    if (this.#storeTimer !== null) clearTimeout(this.#storeTimer);
    this.#storeTimer = null;
    this.#storePending().catch((error: unknown) => {
      this.#deferredError ??= error;
    });
  }

  #scheduleStore(): void {
    if (this.#storeTimer !== null || this.#pendingDb.length === 0) return;
    this.#storeTimer = setTimeout(() => {
      this.#storeTimer = null;
      this.#storeKeepingErrors();
    }, this.#storeIntervalMs);
    this.#storeTimer.unref();
  }

  /** At the process's exit (no more event loop): the queued records into the file, synchronously. */
  appendAtExit(): void {
    try {
      this.#appendQueued();
    } catch {
      // The exit goes on; what could not be written is lost with the process, as in a crash.
    }
  }

  /** The queue into the file, and from there owed to the db. Throws the file's error. */
  #appendQueued(): void {
    if (!this.#file.isOpen) return;
    const queued = this.#queue;
    this.#queue = [];
    const { records } = this.#file.append(queued);
    if (records.length > 0 && this.#onAppended !== undefined) {
      try {
        this.#onAppended(records);
      } catch {
        // A consumer's failure is its own: the trace goes on.
      }
    }
    if (this.#fenced || records.length === 0) return;
    if (this.#pendingDb.length === 0) this.#pendingDb = records;
    else for (const record of records) this.#pendingDb.push(record);
  }

  /**
   * Stores what is pending once the writes before it are done, in transactions of at most `maxBatch`
   * records; rejects with a non-transient db error. Stops at a busy or unreachable db (retried later).
   */
  #storePending(): Promise<void> {
    const next = this.#writes.then(async () => {
      while (this.#pendingDb.length > 0 && !this.#fenced && (await this.#storeBatch()));
    });
    this.#writes = next.catch(() => undefined);
    return next;
  }

  /** One transaction of pending records: false when the db could not take it now (kept for a retry). */
  async #storeBatch(): Promise<boolean> {
    const started = performance.now();
    const batch =
      this.#pendingDb.length <= this.#maxBatch ? this.#pendingDb : this.#pendingDb.slice(0, this.#maxBatch);
    this.#pendingDb = batch === this.#pendingDb ? [] : this.#pendingDb.slice(this.#maxBatch);
    let failure: unknown;
    try {
      await this.#store.transaction(async (tx) => {
        await this.#checkOwner(tx);
        await tx.upsert(batch);
      });
      this.#record(batch.length, started);
      this.#onCommit?.(batch);
      return true;
    } catch (error) {
      if (this.#keepForRetry(error, batch) || this.#fencedBy(error)) return false;
      failure = error;
    }
    // A non-transient failure: every record that can be stored is, each in its savepoint (on
    // PostgreSQL a failed statement would abort the whole transaction); the first error is reported.
    let stored = 0;
    let firstError: unknown;
    try {
      await this.#store.transaction(async (tx) => {
        await this.#checkOwner(tx);
        for (const record of batch) {
          try {
            await tx.transaction((one) => one.upsert([record]));
            stored += 1;
          } catch (error) {
            firstError ??= error;
          }
        }
      });
    } catch (error) {
      if (this.#keepForRetry(error, batch) || this.#fencedBy(error)) return false;
      throw error;
    }
    this.#record(stored, started);
    throw firstError ?? failure;
  }

  /** Inside a batch's transaction: FencedError when another process owns the session. */
  async #checkOwner(tx: TraceSql): Promise<void> {
    if (this.#fence !== undefined)
      await checkSessionOwner(tx, this.#fence, this.#store.dialect === "postgres");
  }

  /** True (the batch queued again, first, and a retry scheduled) when `error` is a busy, locked or lost db. */
  #keepForRetry(error: unknown, batch: TraceRecord[]): boolean {
    if (!isTransient(error)) return false;
    this.#lastBusyError = error;
    this.#pendingDb = this.#pendingDb.length === 0 ? batch : batch.concat(this.#pendingDb);
    this.#scheduleRetry();
    return true;
  }

  /** A db that could not take a batch is tried again after the file interval (SQLite) or the store interval. */
  #scheduleRetry(): void {
    if (this.#storeIntervalMs <= this.#flushIntervalMs) this.#schedule();
    else this.#scheduleStore();
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
  async #lookAtOwner(): Promise<void> {
    const fence = this.#fence;
    if (fence === undefined || this.#fenced || !this.#file.isOpen) return;
    try {
      await checkSessionOwner(this.#store, fence, false);
    } catch (error) {
      this.#fencedBy(error);
    }
  }

  #record(records: number, started: number): void {
    const elapsed = performance.now() - started;
    this.#counters.records += records;
    this.#counters.batches += 1;
    if (elapsed > this.#counters.maxBatchMs) this.#counters.maxBatchMs = elapsed;
  }
}
