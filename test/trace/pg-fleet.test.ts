import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import {
  configurePostgresTrace,
  DEFAULT_POSTGRES_SETTINGS,
  postgresTraceSettings,
} from "../../src/trace/postgres/pg-shared.js";
import { Tracer } from "../../src/trace/tracer.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { eventRow, sessionRecords, useTempDir } from "./trace-fixtures.js";

// A fleet's trace on one PostgreSQL (docs/cluster.md#scale): a trickle of events batched into about
// one transaction a second, followers woken by NOTIFY, one bounded pool per process.

const tempDir = useTempDir("pg-fleet");
const T0 = Date.UTC(2025, 0, 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function event(adwId: string, index: number): TraceRecord {
  const id = `evt_${adwId}_${String(index).padStart(6, "0")}`;
  return { table: "events", row: eventRow(adwId, id, new Date(T0 + index).toISOString()) };
}

async function count(database: TestDatabase, adwId: string): Promise<number> {
  const rows = await database.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE adw_id = $1", [
    adwId,
  ]);
  return Number(rows[0]?.n);
}

describePostgres("a fleet's trace on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  afterEach(() => configurePostgresTrace(DEFAULT_POSTGRES_SETTINGS));

  it("a trickle of events costs about one transaction a second, and an explicit flush stores at once", async () => {
    const store = await openTraceStore(database.url);
    const tracer = new Tracer({ store, eventsFile: path.join(tempDir(), "t1t1t1t1", "events.jsonl") });
    const started = performance.now();
    const written = 60;
    // 60 events, one every 40 ms: a real run's trickle (tool calls, text) over about 2.4 s.
    for (let i = 0; i < written; i++) {
      tracer.write(event("t1t1t1t1", i));
      await sleep(40);
    }
    const elapsed = performance.now() - started;
    // Batched: at most one transaction per started second (and the flush below), never one per event.
    expect(tracer.stats.batches).toBeLessThanOrEqual(Math.ceil(elapsed / 1000) + 1);
    expect(tracer.stats.batches).toBeLessThan(written / 5);
    // A journaled step (a phase's end) flushes: committed when flush() resolves.
    await tracer.flush();
    expect(await count(database, "t1t1t1t1")).toBe(written);
    await tracer.close();
    await store.close();
  });

  it("wakes a follower at the commit of its session's rows, and not before", async () => {
    const writer = await openTraceStore(database.url);
    const reader = await openTraceStore(database.url, { readonly: true });
    const waker = await reader.follow("w1w1w1w1");
    const other = await reader.follow("w2w2w2w2");
    try {
      const tracer = new Tracer({ store: writer, eventsFile: path.join(tempDir(), "w1", "events.jsonl") });
      for (const record of sessionRecords("w1w1w1w1", T0)) tracer.write(record);
      const woken = waker.wait(250);
      await tracer.flush();
      // NOTIFY from the writer's transaction, not the 5 s safety poll.
      expect(await woken).toBe("notified");
      expect(await count(database, "w1w1w1w1")).toBeGreaterThan(0);
      // A commit while the follower was reading is not lost: the next wait returns at once.
      tracer.write(event("w1w1w1w1", 999));
      await tracer.flush();
      await sleep(100);
      expect(await waker.wait(250)).toBe("notified");
      // A rolled-back transaction notifies nobody: the other session's follower sleeps through it.
      const rolledBack = other.wait(250);
      await writer
        .transaction(async (tx) => {
          await tx.upsert([event("w2w2w2w2", 1)]);
          throw new Error("rolled back");
        })
        .catch(() => undefined);
      expect(await rolledBack).toBe("timeout");
      expect(await count(database, "w2w2w2w2")).toBe(0);
      await tracer.close();
    } finally {
      await waker.close();
      await other.close();
      await reader.close();
      await writer.close();
    }
  });

  it("one pool per process: ten stores hold at most trace.postgres.max_connections connections", async () => {
    configurePostgresTrace({ maxConnections: 2, listenUrl: null });
    expect(postgresTraceSettings().maxConnections).toBe(2);
    const stores = await Promise.all(Array.from({ length: 10 }, () => openTraceStore(database.url)));
    let peak = 0;
    const sample = async () => {
      const rows = await database.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'sssf'",
        [database.name],
      );
      peak = Math.max(peak, Number(rows[0]?.n));
    };
    // 30 statements of 100 ms at once, three per store: they queue for the pool's two connections.
    const queries = stores.flatMap((store) =>
      Array.from({ length: 3 }, () => store.get("SELECT pg_sleep(0.1) AS slept")),
    );
    const sampling = (async () => {
      for (let i = 0; i < 10; i++) {
        await sample();
        await sleep(100);
      }
    })();
    await Promise.all([...queries, sampling]);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(2);
    for (const store of stores) await store.close();
    // The last store's close ends the pool: no connection of this process is left.
    let left = -1;
    // A backend leaves pg_stat_activity a moment after its client said goodbye.
    for (let i = 0; i < 50 && left !== 0; i++) {
      const rows = await database.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'sssf'",
        [database.name],
      );
      left = Number(rows[0]?.n);
      if (left !== 0) await sleep(100);
    }
    expect(left).toBe(0);
  });
});
