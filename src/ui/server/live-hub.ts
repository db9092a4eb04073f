import { statSync } from "node:fs";
import { SssfError } from "../../errors/sssf-error.js";
import { openTraceDb } from "../../trace/database.js";
import type { TraceDb } from "../../trace/sqlite.js";
import { displayTraceLocation } from "../../trace/trace-location.js";
import type { LiveSubscription } from "./api-types.js";
import { LiveReader } from "./live-query.js";
import { type DatabaseWatch, watchDatabase } from "./live-watch.js";
import { forgetColumns } from "./row-sql.js";
import type { HubCursor } from "./run-queries.js";
import { readSession } from "./session-queries.js";
import { TickMessages } from "./tick-messages.js";

/** One connected live client. `send` returns false when the client cannot keep up (it is dropped). */
export interface LiveClient {
  subscription: LiveSubscription;
  send(text: string): boolean;
  close(): void;
}

/** Options of a {@link LiveHub}. */
export interface LiveHubOptions {
  /** Least time between two reads, so a burst of commits costs one query (default 20 ms). */
  minGapMs?: number;
  /** Fallback poll interval when file notifications are missed (default 1000 ms). */
  fallbackMs?: number;
  /** Keep-alive comment interval (default 15 s). */
  keepAliveMs?: number;
}

const inode = (file: string): number | null => {
  try {
    return statSync(file).ino;
  } catch {
    return null;
  }
};

/**
 * Owns the UI's read-only connection and turns commits into live deltas: a watch on the database's
 * folder (and a slow interval) wakes it, `PRAGMA data_version` tells cheaply whether anything was
 * committed, and then ONE incremental query reads every new row for all clients together.
 * Contract: never throws from timers or sends; a client that cannot keep up is closed (it reconnects
 * and reloads). A replaced database file (`sssf db rebuild`) is reopened and every client told to reload.
 */
export class LiveHub {
  readonly #dbPath: string;
  readonly #minGapMs: number;
  readonly #clients = new Set<LiveClient>();
  readonly #watch: DatabaseWatch;
  readonly #keepAlive: NodeJS.Timeout;
  #db: TraceDb;
  #reader: LiveReader;
  #inode: number | null;
  #dataVersion = -1;
  #tick = 0;
  #lastPoll = 0;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  /** Opens `dbPath` read-only; throws SssfError("usage") naming the path when it is missing or foreign. */
  constructor(dbPath: string, options: LiveHubOptions = {}) {
    this.#dbPath = dbPath;
    this.#minGapMs = options.minGapMs ?? 20;
    this.#db = openTraceDb(dbPath, { readonly: true });
    this.#inode = inode(dbPath);
    try {
      this.#reader = new LiveReader(this.#db);
    } catch (error) {
      this.#db.close();
      throw new SssfError(
        "usage",
        `${displayTraceLocation(dbPath)} is not an sssf trace database (${(error as Error).message}); pass --db PATH.`,
      );
    }
    this.#dataVersion = this.#readDataVersion();
    this.#watch = watchDatabase(dbPath, {
      onChange: () => this.notify(),
      onInterval: () => this.#checkReplaced(),
      fallbackMs: options.fallbackMs ?? 1000,
    });
    this.#keepAlive = setInterval(
      () => this.#broadcast(() => ": keep-alive\n\n"),
      options.keepAliveMs ?? 15_000,
    );
    this.#keepAlive.unref();
  }

  /** The read-only connection for API reads (replaced when the database file is). */
  get db(): TraceDb {
    return this.#db;
  }

  /** The tick and the rowids sent so far: snapshots count up to these. */
  get cursor(): HubCursor {
    const cursors = this.#reader.cursors;
    return { tick: this.#tick, events: cursors.events, envelopes: cursors.envelopes };
  }

  /** Number of connected clients. */
  get clientCount(): number {
    return this.#clients.size;
  }

  /** Adds a client; it first receives a `hello` with the current tick. */
  add(client: LiveClient): void {
    this.#clients.add(client);
    if (!client.send(`event: hello\ndata: {"tick":${this.#tick}}\n\n`)) this.remove(client);
  }

  /** Removes a client without closing it (it went away). */
  remove(client: LiveClient): void {
    this.#clients.delete(client);
  }

  /** Schedules a read soon, at most one per `minGapMs`. Cheap; call it on every change notification. */
  notify(): void {
    if (this.#timer !== null || this.#closed) return;
    const wait = Math.max(0, this.#lastPoll + this.#minGapMs - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.poll();
    }, wait);
  }

  /** Reads what was committed since the last read and sends the deltas now. Never throws. */
  poll(): void {
    if (this.#closed) return;
    this.#lastPoll = performance.now();
    try {
      const version = this.#readDataVersion();
      if (version === this.#dataVersion) return;
      if (this.#clients.size === 0) {
        // Nobody to tell: only the cursors (what snapshots count up to) must follow the commits.
        this.#reader.skip();
        this.#dataVersion = version;
        this.#tick += 1;
        return;
      }
      const { rows, full } = this.#reader.read();
      if (!full) this.#dataVersion = version;
      else this.notify();
      if (rows.length === 0) return;
      this.#tick += 1;
      const messages = new TickMessages(this.#tick, rows);
      this.#broadcast((client) => {
        const message = messages.messageFor(client.subscription);
        return message === null ? null : `event: delta\ndata: ${message}\n\n`;
      });
    } catch {
      // A busy or momentarily unreadable database: the next notification or interval retries.
    }
  }

  /** Sends the current row of one session to every client (after the archive flag changed). */
  publishSession(adwId: string): void {
    const row = readSession(this.#db, adwId);
    if (row === undefined) return;
    this.#tick += 1;
    const text = `event: delta\ndata: ${JSON.stringify({ tick: this.#tick, sessions: [row] })}\n\n`;
    this.#broadcast(() => text);
  }

  /** Stops watching, closes every client and the connection. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    clearInterval(this.#keepAlive);
    this.#watch.close();
    for (const client of this.#clients) client.close();
    this.#clients.clear();
    this.#db.close();
  }

  #readDataVersion(): number {
    return this.#db.pragma("data_version", { simple: true }) as number;
  }

  #broadcast(render: (client: LiveClient) => string | null): void {
    for (const client of [...this.#clients]) {
      const text = render(client);
      if (text === null || client.send(text)) continue;
      this.#clients.delete(client);
      client.close();
    }
  }

  #checkReplaced(): void {
    const now = inode(this.#dbPath);
    if (now === null || now === this.#inode || this.#closed) return;
    try {
      const db = openTraceDb(this.#dbPath, { readonly: true });
      this.#db.close();
      forgetColumns(this.#db);
      this.#db = db;
      this.#inode = now;
      this.#reader = new LiveReader(db);
      this.#dataVersion = this.#readDataVersion();
      this.#tick += 1;
      this.#broadcast(() => `event: reset\ndata: {"tick":${this.#tick}}\n\n`);
    } catch {
      // Mid-rebuild: the next interval tries again.
    }
  }
}
