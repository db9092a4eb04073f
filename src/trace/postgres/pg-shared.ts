/**
 * One `pg` pool per process and trace URL, shared by every store opened on it (each run of a worker,
 * its followers, the CLI's reads), so a process holds at most `maxConnections` connections to the
 * trace however many runs it serves; and one LISTEN connection per process for the followers
 * (`pg-listener.ts`). The bound comes from `trace.postgres.max_connections` (docs/cluster.md#scale):
 * the first config a process loads sets it for the pools it opens after.
 */

import { createRequire } from "node:module";
import type { Pool } from "pg";

type Pg = typeof import("pg");
let pgModule: Pg | undefined;

/** `pg`, required on first use (a SQLite trace never loads it). */
export function pg(): Pg {
  pgModule ??= createRequire(import.meta.url)("pg") as Pg;
  return pgModule;
}

/** How a process connects to a PostgreSQL trace (config `trace.postgres`). */
export interface PostgresTraceSettings {
  /** The most connections one process holds in its pool (default 4). */
  maxConnections: number;
  /**
   * Where followers LISTEN (a session-mode connection: behind PgBouncer in transaction mode, the
   * server's own address); null: the trace URL itself.
   */
  listenUrl: string | null;
}

export const DEFAULT_POSTGRES_SETTINGS: PostgresTraceSettings = { maxConnections: 4, listenUrl: null };

let settings: PostgresTraceSettings = DEFAULT_POSTGRES_SETTINGS;

/** Sets this process's PostgreSQL settings (the loaded config's); pools already open keep theirs. */
export function configurePostgresTrace(next: PostgresTraceSettings): void {
  settings = next;
}

/** This process's PostgreSQL settings. */
export function postgresTraceSettings(): PostgresTraceSettings {
  return settings;
}

const NUMBER = (value: string | null) => (value === null ? null : Number(value));
const TEXT = (value: string) => value;
/** bigint and numeric as numbers (the trace's fit a double); json as its text, as SQLite hands it back. */
const TYPES = {
  getTypeParser(oid: number, format?: string) {
    if (oid === 20 || oid === 1700) return NUMBER;
    if (oid === 114 || oid === 3802) return TEXT;
    return (pg().types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
};

/** The type parsers every trace connection uses (the pool's and the listener's). */
export const PG_TYPES = TYPES;

interface Shared {
  pool: Pool;
  users: number;
}

const pools = new Map<string, Shared>();

/**
 * The process's pool for `url`, opened on first use (read-only stores share it: their statements run
 * in read-only transactions); give it back with {@link releasePool}. The last user's release ends it.
 */
export function acquirePool(url: string, options: { connectTimeoutMs: number }): Pool {
  const key = url;
  const known = pools.get(key);
  if (known !== undefined) {
    known.users += 1;
    return known.pool;
  }
  const { Pool } = pg();
  const pool = new Pool({
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    max: settings.maxConnections,
    idleTimeoutMillis: 10_000,
    allowExitOnIdle: true,
    types: TYPES,
    application_name: "sssf",
  });
  // An idle connection the server dropped: the pool replaces it; nothing was in flight.
  pool.on("error", () => {});
  pools.set(key, { pool, users: 1 });
  return pool;
}

/** Gives `pool` back; the last user ends it (its connections close). */
export async function releasePool(pool: Pool): Promise<void> {
  for (const [key, shared] of pools) {
    if (shared.pool !== pool) continue;
    shared.users -= 1;
    if (shared.users > 0) return;
    pools.delete(key);
    break;
  }
  await pool.end();
}
