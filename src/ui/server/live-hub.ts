import { statSync } from "node:fs";
import { SssfError } from "../../errors/sssf-error.js";
import { openTraceStore } from "../../trace/open-store.js";
import type { TraceStore } from "../../trace/store.js";
import { displayTraceLocation } from "../../trace/trace-location.js";
import type { LiveSubscription } from "./api-types.js";
import { LiveReader } from "./live-query.js";
import { type DatabaseWatch, watchDatabase } from "./live-watch.js";
import { forgetColumns, loadColumns } from "./row-sql.js";
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

/** The trace at `location` opened read-only, its columns loaded, and its live reader. */
async function openReader(location: string): Promise<{ db: TraceStore; reader: LiveReader }> {
  const db = await openTraceStore(location, { readonly: true });
  try {
    await loadColumns(db);
    return { db, reader: await LiveReader.open(db) };
  } catch (error) {
    await db.close();
    throw error;
  }
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
 * committed (on PostgreSQL: the rowid sequence's last value), and then ONE incremental query reads
 * every new row for all clients together. One read at a time: a notification during a read is read next.
 * Contract: never throws from timers or sends; a client that cannot keep up is closed (it reconnects
 * and reloads). A replaced database file (`sssf db rebuild`) is reopened and every client told to reload.
 */
export class LiveHub {
  readonly #dbPath: string;
  readonly #minGapMs: number;
  readonly #clients = new Set<LiveClient>();
  readonly #watch: DatabaseWatch;
  readonly #keepAlive: NodeJS.Timeout;
  #db: TraceStore;
  #reader: LiveReader;
  /** The read in progress, and whether another was asked for meanwhile. */
  #polling: Promise<void> | null = null;
  #again = false;
  #inode: number | null;
  #dataVersion = -1;
  #tick = 0;
  #lastPoll = 0;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  /** Opens `dbPath` read-only; rejects with SssfError("usage") naming the path when it is missing or foreign. */
  static async open(dbPath: string, options: LiveHubOptions = {}): Promise<LiveHub> {
    const db = await openTraceStore(dbPath, { readonly: true });
    let reader: LiveReader;
    try {
      await loadColumns(db);
      reader = await LiveReader.open(db);
    } catch (error) {
      await db.close();
      throw new SssfError(
        "usage",
        `${displayTraceLocation(dbPath)} is not an sssf trace database (${(error as Error).message}); pass --db PATH.`,
      );
    }
    let version: number;
    try {
      version = await readDataVersion(db);
    } catch (error) {
      await db.close();
      throw error;
    }
    return new LiveHub(dbPath, db, reader, version, options);
  }

  private constructor(
    dbPath: string,
    db: TraceStore,
    reader: LiveReader,
    dataVersion: number,
    options: LiveHubOptions,
  ) {
    this.#dbPath = dbPath;
    this.#minGapMs = options.minGapMs ?? 20;
    this.#db = db;
    this.#inode = inode(dbPath);
    this.#reader = reader;
    this.#dataVersion = dataVersion;
    this.#watch = watchDatabase(dbPath, {
      onChange: () => this.notify(),
      onInterval: () => void this.#checkReplaced(),
      fallbackMs: options.fallbackMs ?? 1000,
    });
    this.#keepAlive = setInterval(
      () => this.#broadcast(() => ": keep-alive\n\n"),
      options.keepAliveMs ?? 15_000,
    );
    this.#keepAlive.unref();
  }

  /** The read-only connection for API reads (replaced when the database file is). */
  get db(): TraceStore {
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
      void this.poll();
    }, wait);
  }

  /**
   * Reads what was committed since the last read and sends the deltas; resolves when they are sent.
   * A call during a read resolves after one more read that starts when the current one ends. Never rejects.
   */
  poll(): Promise<void> {
    if (this.#polling !== null) {
      this.#again = true;
      return this.#polling;
    }
    this.#polling = (async () => {
      do {
        this.#again = false;
        await this.#read();
      } while (this.#again && !this.#closed);
    })().finally(() => {
      this.#polling = null;
    });
    return this.#polling;
  }

  async #read(): Promise<void> {
    if (this.#closed) return;
    this.#lastPoll = performance.now();
    const db = this.#db;
    const reader = this.#reader;
    try {
      const version = await readDataVersion(db);
      if (version === this.#dataVersion || db !== this.#db) return;
      if (this.#clients.size === 0) {
        // Nobody to tell: only the cursors (what snapshots count up to) must follow the commits.
        await reader.skip();
        this.#dataVersion = version;
        this.#tick += 1;
        return;
      }
      const { rows, full } = await reader.read();
      if (db !== this.#db || this.#closed) return;
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
  async publishSession(adwId: string): Promise<void> {
    const row = await readSession(this.#db, adwId);
    if (row === undefined) return;
    this.#tick += 1;
    const text = `event: delta\ndata: ${JSON.stringify({ tick: this.#tick, sessions: [row] })}\n\n`;
    this.#broadcast(() => text);
  }

  /** Stops watching, closes every client and the connection. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    clearInterval(this.#keepAlive);
    this.#watch.close();
    for (const client of this.#clients) client.close();
    this.#clients.clear();
    await this.#polling;
    await this.#db.close();
  }

  #broadcast(render: (client: LiveClient) => string | null): void {
    for (const client of [...this.#clients]) {
      const text = render(client);
      if (text === null || client.send(text)) continue;
      this.#clients.delete(client);
      client.close();
    }
  }

  async #checkReplaced(): Promise<void> {
    const now = inode(this.#dbPath);
    if (now === null || now === this.#inode || this.#closed) return;
    this.#inode = now;
    try {
      const { db, reader } = await openReader(this.#dbPath);
      const version = await readDataVersion(db);
      if (this.#closed) {
        await db.close();
        return;
      }
      const old = this.#db;
      this.#db = db;
      this.#reader = reader;
      this.#dataVersion = version;
      forgetColumns(old);
      await old.close();
      this.#tick += 1;
      this.#broadcast(() => `event: reset\ndata: {"tick":${this.#tick}}\n\n`);
    } catch {
      // Mid-rebuild: the next interval tries again.
      this.#inode = null;
    }
  }
}

/** `PRAGMA data_version`: changes whenever another connection commits. */
async function readDataVersion(db: TraceStore): Promise<number> {
  return Number(await db.pragma("data_version", { simple: true }));
}
