/**
 * Followers woken by PostgreSQL instead of polling: every transaction that writes a session's rows
 * sends `NOTIFY sssf_events, '<adw_id>'` (`PgSql.upsert`), and one connection per process and URL
 * LISTENs on that channel for every follower of the process. A follower re-reads its session when it
 * is notified, and every SAFETY_POLL_MS anyway (a notification lost with a dropped connection).
 * LISTEN needs a session of its own: behind PgBouncer in transaction mode point
 * `trace.postgres.listen_url` at the server itself (docs/cluster.md#scale).
 */

import type { Client } from "pg";
import type { SessionWaker } from "../store.js";
import { PG_TYPES, pg } from "./pg-shared.js";

/** The channel writers notify and followers listen on; the payload is the session's adw_id. */
export const EVENTS_CHANNEL = "sssf_events";

/** A follower waits at most this long without a notification before it reads again. */
export const SAFETY_POLL_MS = 5000;

interface Follower {
  notified: boolean;
  wake: (() => void) | null;
}

/** The LISTEN connection of one URL, shared by the process's followers. */
class Listener {
  readonly #url: string;
  readonly #followers = new Map<string, Set<Follower>>();
  #client: Promise<Client | null> | null = null;
  #attempts = 0;

  constructor(url: string) {
    this.#url = url;
  }

  get idle(): boolean {
    return this.#followers.size === 0;
  }

  /** Connected and listening, or null (down: the followers poll until the next attempt). */
  connection(): Promise<Client | null> {
    this.#client ??= this.#connect();
    return this.#client;
  }

  async #connect(): Promise<Client | null> {
    // A later attempt's connection is not this one's to drop.
    const mine = ++this.#attempts;
    const client = new (pg().Client)({
      connectionString: this.#url,
      connectionTimeoutMillis: 3000,
      types: PG_TYPES,
      application_name: "sssf-listen",
    });
    let gone = false;
    const lost = () => {
      if (gone) return;
      gone = true;
      if (this.#attempts === mine) this.#client = null;
      client.end().catch(() => {});
      // Whatever came meanwhile is read now.
      for (const set of this.#followers.values()) for (const follower of set) this.#notify(follower);
    };
    client.on("error", lost);
    client.on("notification", (message) => {
      if (message.channel !== EVENTS_CHANNEL) return;
      for (const follower of this.#followers.get(message.payload ?? "") ?? []) this.#notify(follower);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch {
      client.removeListener("error", lost);
      client.on("error", () => {});
      await client.end().catch(() => {});
      if (this.#attempts === mine) this.#client = null;
      return null;
    }
    client.once("end", lost);
    return client;
  }

  #notify(follower: Follower): void {
    follower.notified = true;
    const wake = follower.wake;
    follower.wake = null;
    wake?.();
  }

  add(adwId: string, follower: Follower): void {
    const set = this.#followers.get(adwId) ?? new Set<Follower>();
    this.#followers.set(adwId, set);
    set.add(follower);
  }

  remove(adwId: string, follower: Follower): void {
    const set = this.#followers.get(adwId);
    set?.delete(follower);
    if (set?.size === 0) this.#followers.delete(adwId);
  }

  async end(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    const open = await client;
    await open?.end().catch(() => {});
  }
}

const listeners = new Map<string, Listener>();

/**
 * Starts following session `adwId` through `url`'s LISTEN connection (opened with the process's first
 * follower, closed with its last). Resolves once listening, or when it could not (the follower polls).
 */
export async function followSession(url: string, adwId: string): Promise<SessionWaker> {
  const listener = listeners.get(url) ?? new Listener(url);
  listeners.set(url, listener);
  const follower: Follower = { notified: false, wake: null };
  listener.add(adwId, follower);
  const own = listener;
  await own.connection();
  let closed = false;
  return {
    async wait(pollMs) {
      if (follower.notified || closed) {
        follower.notified = false;
        return "notified";
      }
      const listening = (await own.connection()) !== null;
      const woke = await new Promise<"notified" | "timeout">((resolve) => {
        const timer = setTimeout(
          () => {
            follower.wake = null;
            resolve("timeout");
          },
          listening ? SAFETY_POLL_MS : pollMs,
        );
        follower.wake = () => {
          clearTimeout(timer);
          resolve("notified");
        };
      });
      follower.notified = false;
      return woke;
    },
    async close() {
      if (closed) return;
      closed = true;
      own.remove(adwId, follower);
      // A wait still pending ends now (its timer would hold the process).
      follower.wake?.();
      if (own.idle && listeners.get(url) === own) {
        listeners.delete(url);
        await own.end();
      }
    },
  };
}
