/**
 * A fresh PostgreSQL database per test, on the server `.ci/run` starts (SSSF_TEST_POSTGRES_URL, a
 * superuser URL on 127.0.0.1). Without that variable the PostgreSQL tests are skipped, unless
 * SSSF_REQUIRE_POSTGRES=1 (CI sets it) makes them fail instead: CI never skips them silently.
 */

import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe } from "vitest";

const ADMIN = process.env.SSSF_TEST_POSTGRES_URL ?? "";
const REQUIRED = process.env.SSSF_REQUIRE_POSTGRES === "1";

if (ADMIN === "" && REQUIRED)
  throw new Error("SSSF_REQUIRE_POSTGRES=1 but SSSF_TEST_POSTGRES_URL is not set: start PostgreSQL first");

/** `describe` when a test server is configured, else `describe.skip`. */
export const describePostgres: ReturnType<typeof describe.skipIf> = describe.skipIf(ADMIN === "");

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new empty database; `url` reaches it, `drop()` removes it (and its connections). */
export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  /** Rows of `sql` (PostgreSQL's dialect, `$1` parameters). */
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /**
   * A database outage of `ms`: every connection to it is cut and new ones are refused meanwhile. Resolves
   * when connections are allowed again.
   */
  outage(ms: number): Promise<void>;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `sssf_t_${randomBytes(5).toString("hex")}`;
  await admin((c) =>
    c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`),
  );
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  const cut = (c: pg.Client) =>
    c.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [name],
    );
  return {
    name,
    url: url.toString(),
    async query<T>(sql: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    async outage(ms: number) {
      await admin(async (c) => {
        await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
        await cut(c);
      });
      await new Promise((resolve) => setTimeout(resolve, ms));
      await admin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
    },
    async drop() {
      await admin(async (c) => {
        await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
        await cut(c);
        await c.query(`DROP DATABASE IF EXISTS ${name}`);
      });
    },
  };
}
