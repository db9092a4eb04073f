/**
 * A synchronous PostgreSQL connection. The trace's API is synchronous (SQLite's is), and the `pg` client
 * is not: a worker thread owns the client, and the calling thread blocks on `Atomics.wait` until the
 * worker answers (about 0.7 ms per round trip here). The worker reconnects by itself: a lost connection
 * fails the statement in flight with a transient error, and the next statement connects again.
 */

import { createRequire } from "node:module";
import type { MessagePort, Worker } from "node:worker_threads";
import { SssfError } from "../../errors/sssf-error.js";
import { workerThreads } from "../../util/lazy-builtins.js";
import { DB_UNAVAILABLE } from "../db-unavailable.js";

/** What one statement returned. */
export interface PgResult {
  rows: Record<string, unknown>[];
  rowCount: number;
}

interface WorkerAnswer {
  id: number;
  results?: PgResult[];
  error?: { message: string; code?: string; unavailable: boolean };
}

// The worker, as a script: it needs nothing but `pg` (resolved by the caller) and Node.
const WORKER = `
const { workerData } = require("node:worker_threads");
const pg = require(workerData.pgPath);
const { port, signal, url, connectTimeoutMs, readOnly } = workerData;
const NUMBER = (v) => (v === null ? null : Number(v));
const TEXT = (v) => v;
const types = {
  getTypeParser(oid, format) {
    if (oid === 20 || oid === 1700) return NUMBER; // bigint, numeric: the trace's numbers fit a double
    if (oid === 114 || oid === 3802) return TEXT; // json: SQLite hands back the text
    return pg.types.getTypeParser(oid, format);
  },
};
const LOST = /^(08|57P0[1-3])/;
let client = null;
let failedAt = 0;
let lastError = "";
function unavailable(error) {
  return !error.code || LOST.test(error.code) || /^E[A-Z]+$/.test(error.code);
}
async function connect() {
  if (client) return client;
  if (Date.now() - failedAt < 250) throw Object.assign(new Error(lastError), { code: "RETRY_LATER" });
  const next = new pg.Client({
    connectionString: url, connectionTimeoutMillis: connectTimeoutMs, types, application_name: "sssf",
    // A read-only trace refuses writes, as SQLite's read-only connections do.
    ...(readOnly ? { options: "-c default_transaction_read_only=on" } : {}),
  });
  next.on("error", () => { if (client === next) client = null; });
  try {
    await next.connect();
  } catch (error) {
    failedAt = Date.now();
    lastError = error.message;
    next.end().catch(() => {});
    throw error;
  }
  client = next;
  return client;
}
function answer(message) {
  port.postMessage(message);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}
port.on("message", async ({ id, sql }) => {
  let connected = null;
  try {
    connected = await connect();
    const result = await connected.query(sql);
    const list = Array.isArray(result) ? result : [result];
    answer({ id, results: list.map((r) => ({ rows: r.rows ?? [], rowCount: r.rowCount ?? 0 })) });
  } catch (error) {
    const lost = error.code === "RETRY_LATER" || connected === null || unavailable(error) || client !== connected;
    if (lost && connected) {
      if (client === connected) client = null;
      connected.end().catch(() => {});
    }
    answer({ id, error: { message: error.message, code: error.code, unavailable: lost } });
  }
});
`;

/** One PostgreSQL connection behind a worker thread, driven synchronously. */
export class PgBridge {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal: Int32Array;
  readonly #timeoutMs: number;
  #closed = false;
  #next = 0;

  /** `url` is a `postgres://` URL; the password may come from PGPASSWORD or ~/.pgpass instead. */
  constructor(
    url: string,
    options: { connectTimeoutMs?: number; statementTimeoutMs?: number; readOnly?: boolean } = {},
  ) {
    const pgPath = createRequire(import.meta.url).resolve("pg");
    const { MessageChannel, Worker } = workerThreads();
    const { port1, port2 } = new MessageChannel();
    this.#signal = new Int32Array(new SharedArrayBuffer(4));
    this.#timeoutMs = options.statementTimeoutMs ?? 120_000;
    this.#worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        port: port2,
        signal: this.#signal,
        url,
        pgPath,
        connectTimeoutMs: options.connectTimeoutMs ?? 3000,
        readOnly: options.readOnly === true,
      },
      transferList: [port2],
    });
    // The worker must never keep the process alive by itself.
    this.#worker.unref();
    this.#port = port1;
  }

  /**
   * Runs `sql` (one or more statements, no parameters) and returns each statement's result. Throws an
   * Error with `code` = {@link DB_UNAVAILABLE} when the database cannot be reached (the statement did
   * not run, or its connection broke: retry it), else PostgreSQL's error with its SQLSTATE `code`.
   */
  query(sql: string): PgResult[] {
    if (this.#closed) throw new SssfError("internal", "PostgreSQL trace connection used after close");
    Atomics.store(this.#signal, 0, 0);
    const id = ++this.#next;
    this.#port.postMessage({ id, sql });
    const deadline = Date.now() + this.#timeoutMs;
    // An answer to an earlier statement that timed out is dropped.
    const { receiveMessageOnPort } = workerThreads();
    const receive = () => {
      let got = receiveMessageOnPort(this.#port);
      while (got !== undefined && (got.message as WorkerAnswer).id !== id)
        got = receiveMessageOnPort(this.#port);
      return got;
    };
    let message = receive();
    while (message === undefined) {
      const left = deadline - Date.now();
      if (left <= 0) {
        const error = new Error(`PostgreSQL did not answer in ${this.#timeoutMs / 1000} s`);
        throw Object.assign(error, { code: DB_UNAVAILABLE });
      }
      Atomics.wait(this.#signal, 0, 0, Math.min(left, 1000));
      Atomics.store(this.#signal, 0, 0);
      message = receive();
    }
    const reply = message.message as WorkerAnswer;
    if (reply.error) {
      const { message: text, code, unavailable } = reply.error;
      throw Object.assign(new Error(text), { code: unavailable ? DB_UNAVAILABLE : code, sqlState: code });
    }
    return reply.results ?? [];
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#port.close();
    void this.#worker.terminate();
  }
}
