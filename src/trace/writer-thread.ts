/**
 * The trace's SQLite inserts on a thread of their own. An agent flooding tool calls keeps the main
 * thread busy reading, parsing and filing each line; with the inserts beside it, both cores work.
 * The thread opens its own connection to the same file (WAL: the main connection keeps reading) and
 * gets each batch as its column values (`encodeBatch`): the values `events.jsonl`'s lines hold, as a
 * rebuild from that file would read them back, in one flat array. A structured clone of plain values
 * costs the thread a fifth of parsing the batch's JSON lines again.
 * Batches commit in the order they were handed over; a busy database holds the queue (it never skips
 * ahead), as the tracer's own retry would.
 */

import type { MessagePort, Worker } from "node:worker_threads";
import { workerThreads } from "../util/lazy-builtins.js";
import { ROWS_PER_STATEMENT, upsertSql } from "./batch-upsert.js";
import { columnNames } from "./columns.js";
import { TRACE_TABLES, type TraceRecord } from "./events.js";
import { nodeSqliteCutsAtNul } from "./sqlite.js";

/** What the thread reports of one batch. */
export type BatchAnswer =
  /** Committed: every record stored, or (`error` set) all but the ones the database refused. */
  | { kind: "done"; seq: number; stored: number; error?: Error }
  /** The database stayed busy or locked: the batch (and every later one) waits; the thread retries. */
  | { kind: "busy"; seq: number; error: Error }
  /** The thread cannot write at all (its connection failed): nothing from `seq` on was stored. */
  | { kind: "fatal"; seq: number; error: Error };

interface WireError {
  message: string;
  code?: unknown;
  errcode?: unknown;
}

interface WireAnswer {
  kind: BatchAnswer["kind"] | "closed";
  seq: number;
  stored?: number;
  error?: WireError;
}

// The thread, as a script (a bundled or a tsx-run sssf loads it the same way): Node and the driver only.
const SCRIPT = `
const { workerData } = require("node:worker_threads");
const { port, signal, file, tables, busyRetryMs, busyTimeoutMs, nulAsReplacement } = workerData;
let db = null;
const run = (s, v) => s.run(...v);
const statements = new Map();
function statement(table, rows) {
  const key = table + ":" + rows;
  let found = statements.get(key);
  if (!found) { found = db.prepare(tables[table].sql[rows]); statements.set(key, found); }
  return found;
}
function open() {
  // The main thread's connection created and migrated the file; a file gone since is not recreated.
  if (!require("node:fs").existsSync(file)) throw new Error("trace database " + file + " is gone");
  const emit = process.emitWarning;
  process.emitWarning = (w, ...rest) => { if (!/SQLite is an experimental/i.test(String(w && w.message || w))) emit.call(process, w, ...rest); };
  try { db = new (process.getBuiltinModule("node:sqlite").DatabaseSync)(file); } finally { process.emitWarning = emit; }
  db.exec("PRAGMA busy_timeout = " + busyTimeoutMs + "; PRAGMA synchronous = NORMAL");
  db.prepare("SELECT 1 FROM events LIMIT 0").all();
}
function sizeFor(left) {
  if (left >= ${ROWS_PER_STATEMENT}) return ${ROWS_PER_STATEMENT};
  let size = 1;
  while (size * 2 <= left) size *= 2;
  return size;
}
// A batch: runs of records of one table ([table, count, width] each) and their values, row after row.
function upsertRows(batch, r, offset, from, count) {
  const [table, , width] = batch.runs[r];
  if (!tables[table]) throw Object.assign(new Error("Unknown trace table " + JSON.stringify(table) + " in a trace record."), { code: "SSSF_UNKNOWN_TABLE" });
  const values = batch.values;
  for (let at = from, end = from + count; at < end; ) {
    const rows = sizeFor(end - at);
    const start = offset + at * width;
    const bound = values.slice(start, start + rows * width);
    if (nulAsReplacement) for (let i = 0; i < bound.length; i++) { const v = bound[i]; if (typeof v === "string" && v.includes("\\u0000")) bound[i] = v.replaceAll("\\u0000", "\\uFFFD"); }
    run(statement(table, rows), bound);
    at += rows;
  }
}
// A value the main thread left undefined is the row above's (encodeBatch).
function fillDown(batch) {
  const values = batch.values;
  let offset = 0;
  for (const [, count, width] of batch.runs) {
    for (let i = offset + width, end = offset + count * width; i < end; i++) if (values[i] === undefined) values[i] = values[i - width];
    offset += count * width;
  }
}
function upsertAll(batch) {
  let offset = 0;
  for (let r = 0; r < batch.runs.length; r++) {
    const [, count, width] = batch.runs[r];
    upsertRows(batch, r, offset, 0, count);
    offset += count * width;
  }
}
function rollback() { try { db.exec("ROLLBACK"); } catch {} }
const wire = (e) => ({ message: String(e && e.message || e), code: e && e.code, errcode: e && e.errcode });
const busy = (e) => { const c = e && (typeof e.code === "string" ? e.code : ""); const n = e && typeof e.errcode === "number" ? e.errcode & 0xff : 0; return /^SQLITE_(BUSY|LOCKED)/.test(c) || n === 5 || n === 6; };
// One record at a time, each in its savepoint: store what can be stored, report the first refusal.
function storeEach(batch) {
  let stored = 0, first = null;
  db.exec("BEGIN IMMEDIATE");
  try {
    let offset = 0;
    for (let r = 0; r < batch.runs.length; r++) {
      const [, count, width] = batch.runs[r];
      for (let i = 0; i < count; i++) {
        db.exec("SAVEPOINT sssf_one");
        try { upsertRows(batch, r, offset, i, 1); db.exec("RELEASE sssf_one"); stored++; }
        catch (e) { db.exec("ROLLBACK TO sssf_one; RELEASE sssf_one"); if (busy(e)) throw e; first = first || e; }
      }
      offset += count * width;
    }
    db.exec("COMMIT");
  } catch (e) { rollback(); throw e; }
  return { stored, first };
}
const queue = [];
let fatal = null;
let timer = null;
function answer(message) {
  port.postMessage(message);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}
function drain() {
  timer = null;
  while (queue.length > 0) {
    const batch = queue[0];
    const seq = batch.seq;
    if (fatal) { queue.shift(); continue; }
    try {
      if (!db) open();
    } catch (e) {
      fatal = e;
      answer({ kind: "fatal", seq, error: wire(e) });
      queue.length = 0;
      return;
    }
    try {
      db.exec("BEGIN IMMEDIATE");
      try { upsertAll(batch); db.exec("COMMIT"); } catch (e) { rollback(); throw e; }
      queue.shift();
      answer({ kind: "done", seq, stored: batch.count });
    } catch (error) {
      if (busy(error)) { answer({ kind: "busy", seq, error: wire(error) }); timer = setTimeout(drain, busyRetryMs); return; }
      try {
        const { stored, first } = storeEach(batch);
        queue.shift();
        answer({ kind: "done", seq, stored, error: wire(first || error) });
      } catch (again) {
        if (busy(again)) { answer({ kind: "busy", seq, error: wire(again) }); timer = setTimeout(drain, busyRetryMs); return; }
        queue.shift();
        answer({ kind: "done", seq, stored: 0, error: wire(again) });
      }
    }
  }
}
// A fault of this script's own (not of a statement: those are answered above) ends the thread's
// writing: the main thread takes every batch back and stores it itself.
process.on("uncaughtException", (e) => {
  if (fatal) return;
  fatal = e;
  answer({ kind: "fatal", seq: queue.length > 0 ? queue[0].seq : -1, error: wire(e) });
  queue.length = 0;
});
port.on("message", (message) => {
  if (message.retry) { if (timer) { clearTimeout(timer); drain(); } return; }
  if (message.close) {
    if (timer) clearTimeout(timer);
    try { if (db) db.close(); } catch {}
    answer({ kind: "closed", seq: -1 });
    port.close();
    return;
  }
  fillDown(message);
  queue.push(message);
  if (!timer) drain();
});
`;

function fromWire(error: WireError | undefined): Error {
  const rebuilt = new Error(error?.message ?? "trace writer thread failed");
  if (error?.code !== undefined) Object.assign(rebuilt, { code: error.code });
  if (error?.errcode !== undefined) Object.assign(rebuilt, { errcode: error.errcode });
  return rebuilt;
}

/** Records as the thread takes them: runs of one table, `[table, records, columns]`, and their values. */
export interface EncodedBatch {
  count: number;
  runs: [string, number, number][];
  values: unknown[];
}

const COLUMNS: ReadonlyMap<string, readonly string[]> = new Map(
  TRACE_TABLES.map((table) => [table, columnNames(table)]),
);

/**
 * A value as a JSON round trip (`events.jsonl`, then a rebuild) gives it back: a missing field, NaN and
 * ±Infinity as null, -0 as 0; strings, finite numbers and null as they are; anything else through JSON.
 */
function asFiled(value: unknown): unknown {
  if (typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
  if (value === undefined || value === null) return null;
  const text: string | undefined = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

/**
 * `records` for the thread, in order: each run of one table's records and its rows' values in the
 * table's column order (a row's missing field as null), each as `events.jsonl` holds it (`asFiled`).
 * A value equal to the one of the row above in the same run goes as `undefined` (one byte to clone:
 * a flood's ids of session, phase, parent and agent, its type and stamps), which the thread fills in
 * again. An unknown table's run has no values: the thread refuses its records as the one-row upsert would.
 */
export function encodeBatch(records: readonly TraceRecord[]): EncodedBatch {
  const runs: [string, number, number][] = [];
  const values: unknown[] = [];
  let run: [string, number, number] | null = null;
  let columns: readonly string[] = [];
  let last: unknown[] = [];
  for (const record of records) {
    if (run === null || record.table !== run[0]) {
      columns = COLUMNS.get(record.table) ?? [];
      run = [record.table, 0, columns.length];
      runs.push(run);
      last = new Array(columns.length).fill(undefined);
    }
    run[1] += 1;
    const row = record.row as unknown as Record<string, unknown>;
    for (let c = 0; c < columns.length; c++) {
      const raw = row[columns[c] as string];
      const value = typeof raw === "string" ? raw : asFiled(raw);
      // The row above's value again: sent as undefined (one byte), the thread copies it down.
      if (value === last[c]) values.push(undefined);
      else {
        values.push(value);
        last[c] = value;
      }
    }
  }
  return { count: records.length, runs, values };
}

/** How long a synchronous wait gives the thread before calling it lost. */
const ANSWER_TIMEOUT_MS = 120_000;

/**
 * The main thread's end of the writer thread on `file` (a SQLite trace another connection of this
 * process opened and migrated). `post` hands over a batch; answers arrive by themselves (`onAnswer`,
 * when the event loop runs) or by `waitFor`, which blocks until a batch is answered.
 */
export class WriterThread {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal: Int32Array;
  readonly #onAnswer: (answer: BatchAnswer) => void;
  #seq = 0;
  #closed = false;
  /** A fatal answer was delivered: nothing more is. */
  #gone = false;
  /** The thread ended without being closed: nobody is there to answer. */
  #dead = false;

  /** `busyTimeoutMs`: the wait for a lock before a batch counts as busy (the main connection's). */
  constructor(
    file: string,
    onAnswer: (answer: BatchAnswer) => void,
    options: { busyTimeoutMs: number; busyRetryMs?: number },
  ) {
    const tables: Record<string, { columns: readonly string[]; sql: Record<number, string> }> = {};
    for (const table of TRACE_TABLES) {
      const sql: Record<number, string> = { [ROWS_PER_STATEMENT]: upsertSql(table, ROWS_PER_STATEMENT) };
      for (let rows = 1; rows < ROWS_PER_STATEMENT; rows *= 2) sql[rows] = upsertSql(table, rows);
      tables[table] = { columns: columnNames(table), sql };
    }
    const { MessageChannel, Worker } = workerThreads();
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#signal = new Int32Array(new SharedArrayBuffer(4));
    this.#onAnswer = onAnswer;
    this.#worker = new Worker(SCRIPT, {
      eval: true,
      workerData: {
        port: port2,
        signal: this.#signal,
        file,
        tables,
        busyRetryMs: options.busyRetryMs ?? 250,
        busyTimeoutMs: Math.max(0, Math.floor(options.busyTimeoutMs)),
        // As the main connection binds them (sqlite.ts): where node:sqlite reads text up to a NUL only.
        nulAsReplacement: nodeSqliteCutsAtNul(),
      },
      transferList: [port2],
      // The parent's stdio: a warning the thread prints reaches the user as the main thread's would.
      stdout: false,
      stderr: false,
    });
    this.#worker.unref();
    // The thread itself failed (out of memory): its batches come back as after a fatal answer.
    this.#worker.on("error", (error) => this.#lost(error));
    this.#worker.on("exit", (code) => this.#lost(new Error(`the trace writer thread exited (code ${code})`)));
    this.#port.on("message", (message: WireAnswer) => this.#deliver(message));
    this.#port.unref();
  }

  /** Asks a thread a busy database held to try again now. */
  retry(): void {
    this.#port.postMessage({ retry: true });
  }

  /** Hands over one batch (`encodeBatch` of its records); returns its sequence number. */
  post(batch: EncodedBatch): number {
    this.#seq += 1;
    this.#port.postMessage({ seq: this.#seq, count: batch.count, runs: batch.runs, values: batch.values });
    return this.#seq;
  }

  /**
   * Blocks until `done()` says so, delivering each answer as it comes. Throws when the thread gives no
   * answer for two minutes (it is gone).
   */
  waitFor(done: () => boolean): void {
    let lastAnswerAt = Date.now();
    while (!done()) {
      const seen = Atomics.load(this.#signal, 0);
      const message = workerThreads().receiveMessageOnPort(this.#port);
      if (message !== undefined) {
        this.#deliver(message.message as WireAnswer);
        lastAnswerAt = Date.now();
        continue;
      }
      if (Date.now() - lastAnswerAt > ANSWER_TIMEOUT_MS)
        throw new Error("The trace writer thread stopped answering for two minutes.");
      Atomics.wait(this.#signal, 0, seen, 1000);
    }
  }

  /** Closes the thread's connection and lets the thread end. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#port.postMessage({ close: true });
    let closed = this.#dead;
    const until = Date.now() + 5_000;
    while (!closed && Date.now() < until) {
      const seen = Atomics.load(this.#signal, 0);
      const message = workerThreads().receiveMessageOnPort(this.#port);
      if (message === undefined) {
        Atomics.wait(this.#signal, 0, seen, 100);
        continue;
      }
      const answer = message.message as WireAnswer;
      if (answer.kind === "closed") closed = true;
      else this.#deliver(answer);
    }
    this.#port.close();
    void this.#worker.terminate();
  }

  /** The thread is gone without closing: every batch it held is given back, once. */
  #lost(error: Error): void {
    this.#dead = true;
    if (this.#closed || this.#gone) return;
    this.#gone = true;
    this.#onAnswer({ kind: "fatal", seq: -1, error });
  }

  #deliver(message: WireAnswer): void {
    if (message.kind === "fatal") {
      if (this.#gone) return;
      this.#gone = true;
    }
    if (message.kind === "closed") return;
    if (message.kind === "done") {
      const answer: BatchAnswer = { kind: "done", seq: message.seq, stored: message.stored ?? 0 };
      if (message.error !== undefined) answer.error = fromWire(message.error);
      this.#onAnswer(answer);
    } else {
      this.#onAnswer({ kind: message.kind, seq: message.seq, error: fromWire(message.error) });
    }
  }
}
