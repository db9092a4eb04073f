/**
 * Leases on cluster runs (docs/cluster.md, "A pool outage"): the worker executing a run holds it under
 * a lease in the shared trace database, renewed every few seconds while the worker lives. Restate
 * retries a run whenever its connection breaks, and a restarted pool knows no worker yet; a worker
 * handed such a retry takes the run only once the lease is free: released at the run's end, expired
 * (its holder stopped renewing), or held by a worker the pool saw die. The lease also names the Restate
 * invocation the run belongs to, so a second submission of the same adw_id is told apart from a retry.
 */

import { setTimeout as sleep } from "node:timers/promises";
import { UsageError } from "../errors/usage-error.js";
import type { TraceSql } from "../trace/store.js";

/**
 * The one line refusing `--adw-id` of a run the cluster already has. Joining it as a local `--adw-id`
 * does is not offered: its agents' conversations are in the session folder of the worker that ran it,
 * which another worker cannot resume; replaying its old outcome as the new request's would be a lie.
 */
export function resubmissionRefused(adwId: string, what: string): UsageError {
  return new UsageError(
    `--adw-id ${adwId}: ${what}; a cluster run cannot be joined with another request (its agents' sessions are on the worker that ran it): follow it with sssf tail ${adwId}, or submit the request without --adw-id`,
    "--adw-id",
  );
}

/** A lease not renewed for this long is free: the holder is taken for dead (or cut off). */
export const LEASE_TTL_MS = 15_000;
/** How often a worker renews the leases of its runs (one statement for all of them). */
export const LEASE_RENEW_MS = 3_000;

/** The table is the cluster's, beside the trace's tables (store-schema.ts knows its name). */
export const LEASE_TABLE = "sssf_run_leases";

const CREATE = `CREATE TABLE IF NOT EXISTS ${LEASE_TABLE} (
  adw_id TEXT PRIMARY KEY,
  invocation TEXT NOT NULL,
  worker TEXT,
  host TEXT,
  pid INTEGER,
  expires_ms INTEGER NOT NULL
)`;

/** A lease row (`worker` null: released). */
export interface RunLease {
  adw_id: string;
  invocation: string;
  worker: string | null;
  host: string | null;
  pid: number | null;
  expires_ms: number;
}

/** The worker asking for a lease. */
export interface LeaseHolder {
  worker: string;
  host: string;
  pid: number;
}

/** How `acquire` ended. */
export type Acquired =
  | { kind: "new" }
  | { kind: "held" }
  /** The lease was free (released, expired or its holder seen dead): this worker holds it now. */
  | { kind: "taken"; from: RunLease; why: "released" | "expired" | "seen dead" }
  /** The adw_id belongs to another Restate invocation: a second submission, not a retry. */
  | { kind: "other-invocation"; lease: RunLease };

export class RunLeases {
  private constructor(
    private readonly db: TraceSql,
    private readonly now: () => number,
  ) {}

  /** Makes the table when it is missing (any worker may be the first). */
  static async open(db: TraceSql, now: () => number = Date.now): Promise<RunLeases> {
    // Workers starting together race on PostgreSQL's CREATE TABLE IF NOT EXISTS (the loser gets a
    // duplicate key in pg_type): the loser's next try finds the table made.
    for (let attempt = 1; ; attempt++) {
      try {
        await db.exec(CREATE);
        break;
      } catch (error) {
        if (attempt === 5) throw error;
        await sleep(20 * attempt + Math.random() * 50);
      }
    }
    return new RunLeases(db, now);
  }

  async read(adwId: string): Promise<RunLease | undefined> {
    const row = await this.db.get<RunLease>(`SELECT * FROM ${LEASE_TABLE} WHERE adw_id = ?`, [adwId]);
    return row === undefined
      ? undefined
      : { ...row, pid: row.pid === null ? null : Number(row.pid), expires_ms: Number(row.expires_ms) };
  }

  /**
   * Holds `adwId` for invocation `invocation`, waiting while another live worker holds it: until it
   * releases it, stops renewing it, or `seenDead` says the pool saw that worker die. `waiting` hears
   * once that it waits. Resolves how it got the lease; rejects only when `signal` aborts.
   */
  async acquire(
    adwId: string,
    invocation: string,
    me: LeaseHolder,
    options: {
      signal: AbortSignal;
      seenDead: (worker: string) => Promise<boolean>;
      waiting: (lease: RunLease) => void;
    },
  ): Promise<Acquired> {
    // Once per execution, not per phase: a trace file made again since the worker started lacks it.
    await this.db.exec(CREATE);
    let told = false;
    for (;;) {
      options.signal.throwIfAborted();
      const lease = await this.read(adwId);
      if (lease === undefined) {
        const { changes } = await this.db.run(
          `INSERT INTO ${LEASE_TABLE} (adw_id, invocation, worker, host, pid, expires_ms) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (adw_id) DO NOTHING`,
          [adwId, invocation, me.worker, me.host, me.pid, this.now() + LEASE_TTL_MS],
        );
        if (changes === 1) return { kind: "new" };
        continue;
      }
      if (lease.invocation !== invocation) return { kind: "other-invocation", lease };
      if (lease.worker === me.worker) {
        await this.renew(me.worker);
        return { kind: "held" };
      }
      const why =
        lease.worker === null
          ? "released"
          : lease.expires_ms < this.now()
            ? "expired"
            : (await options.seenDead(lease.worker).catch(() => false))
              ? "seen dead"
              : null;
      if (why !== null) {
        if (await this.take(lease, me)) return { kind: "taken", from: lease, why };
        continue;
      }
      if (!told) options.waiting(lease);
      told = true;
      await sleep(1000, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }

  /** Compare-and-set from the lease as read to `me`: false when another worker changed it first. */
  private async take(lease: RunLease, me: LeaseHolder): Promise<boolean> {
    const { changes } = await this.db.run(
      `UPDATE ${LEASE_TABLE} SET worker = ?, host = ?, pid = ?, expires_ms = ? WHERE adw_id = ? AND expires_ms = ? AND ${lease.worker === null ? "worker IS NULL" : "worker = ?"}`,
      [
        me.worker,
        me.host,
        me.pid,
        this.now() + LEASE_TTL_MS,
        lease.adw_id,
        lease.expires_ms,
        ...(lease.worker === null ? [] : [lease.worker]),
      ],
    );
    return changes === 1;
  }

  /** Pushes back the expiry of every lease `worker` holds. */
  async renew(worker: string): Promise<void> {
    await this.db.run(`UPDATE ${LEASE_TABLE} SET expires_ms = ? WHERE worker = ?`, [
      this.now() + LEASE_TTL_MS,
      worker,
    ]);
  }

  /** Frees `adwId` if `worker` still holds it; the row stays, naming the run's invocation. */
  async release(adwId: string, worker: string): Promise<void> {
    await this.db.run(
      `UPDATE ${LEASE_TABLE} SET worker = NULL, host = NULL, pid = NULL, expires_ms = 0 WHERE adw_id = ? AND worker = ?`,
      [adwId, worker],
    );
  }
}
