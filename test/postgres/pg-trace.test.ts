import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import type { EventRow, TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { readTable } from "../../src/trace/store-queries.js";
import { SCHEMA_VERSION } from "../../src/trace/store-schema.js";
import { Tracer } from "../../src/trace/tracer.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { eventRow, sessionRecords, useTempDir } from "../trace/trace-fixtures.js";

const tempDir = useTempDir("pg-trace");
const T0 = Date.UTC(2025, 0, 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function event(adwId: string, index: number, overrides: Partial<EventRow> = {}): TraceRecord {
  const id = `evt_${String(index).padStart(6, "0")}`;
  return { table: "events", row: eventRow(adwId, id, new Date(T0 + index).toISOString(), overrides) };
}

function fileRecords(file: string): TraceRecord[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as TraceRecord);
}

describePostgres("the trace on PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("creates the seven tables at the current schema version, once however many open it", async () => {
    const dbs = await Promise.all([1, 2, 3].map(() => openTraceStore(database.url)));
    for (const db of dbs) expect(await db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    for (const db of dbs) await db.close();
    const tables = await database.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      "agent_sessions",
      "envelopes",
      "events",
      "gate_results",
      "phases",
      "processes",
      "sessions",
      "sssf_schema",
      "steps",
    ]);
    const [version] = await database.query<{ version: string }>("SELECT version FROM sssf_schema");
    expect(Number(version?.version)).toBe(SCHEMA_VERSION);
  });

  it("stores a session's records as SQLite does: upserts replace, a rewritten row moves after the others", async () => {
    const db = await openTraceStore(database.url);
    const eventsFile = path.join(tempDir(), "sessions", "p1p1p1p1", "events.jsonl");
    const store = await openTraceStore(database.url);
    const tracer = new Tracer({ store, eventsFile, maxBatch: 50 });
    const records = sessionRecords("p1p1p1p1", T0);
    for (const record of records) tracer.write(record);
    // The same event twice in one batch: the later one wins.
    for (let i = 0; i < 120; i++) tracer.write(event("p1p1p1p1", i));
    tracer.write(event("p1p1p1p1", 7, { name: "rewritten" }));
    await tracer.close();
    const events = (await readTable(db, "events")) as EventRow[];
    expect(events.filter((e) => e.adw_id === "p1p1p1p1")).toHaveLength(3 * 6 + 120);
    expect(events.find((e) => e.id === "evt_000007")?.name).toBe("rewritten");
    const order = await db.get("SELECT id FROM events WHERE adw_id = ? ORDER BY rowid DESC LIMIT 1", [
      "p1p1p1p1",
    ]);
    expect(order).toEqual({ id: "evt_000007" });
    expect(Object.keys(events[0] as object)).not.toContain("rowid");
    await db.close();
    await store.close();
  });

  it("an outage mid-run loses no event: writes never throw, and the records reach the database when it is back", async () => {
    const db = await openTraceStore(database.url);
    const eventsFile = path.join(tempDir(), "sessions", "o1o1o1o1", "events.jsonl");
    const store = await openTraceStore(database.url);
    const tracer = new Tracer({ store, eventsFile, flushIntervalMs: 5 });
    let written = 0;
    const writeFor = async (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        tracer.write(event("o1o1o1o1", written++));
        await sleep(5);
      }
    };
    await writeFor(300);
    const outage = database.outage(1500);
    const atOutage = written;
    await writeFor(1000);
    // Writes go on while the database is out of reach (a blocking write would make one in 1.5 s).
    expect(written - atOutage).toBeGreaterThan(10);
    await outage;
    await writeFor(300);
    await tracer.close();
    expect(fileRecords(eventsFile)).toHaveLength(written);
    const stored = await database.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE adw_id = $1", [
      "o1o1o1o1",
    ]);
    expect(Number(stored[0]?.n)).toBe(written);
    await db.close();
    await store.close();
  });

  it("close() waits for a database that is out of reach, then stores what it holds", async () => {
    const db = await openTraceStore(database.url);
    const eventsFile = path.join(tempDir(), "sessions", "c1c1c1c1", "events.jsonl");
    const store = await openTraceStore(database.url);
    const tracer = new Tracer({ store, eventsFile, flushIntervalMs: 5 });
    tracer.write(event("c1c1c1c1", 1));
    await tracer.flush();
    // The outage starts now and ends in 1 s; close() retries meanwhile, the database's
    // side of the outage runs in another process.
    const child = spawn(process.execPath, [
      "-e",
      `const pg = require(${JSON.stringify(createRequire(import.meta.url).resolve("pg"))});
       const admin = new URL(process.env.SSSF_TEST_POSTGRES_URL);
       (async () => {
         const c = new pg.Client({ connectionString: admin.toString() }); await c.connect();
         await c.query("ALTER DATABASE ${database.name} ALLOW_CONNECTIONS false");
         await c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database.name}'");
         console.log("down");
         await new Promise((r) => setTimeout(r, 1000));
         await c.query("ALTER DATABASE ${database.name} ALLOW_CONNECTIONS true");
         await c.end();
       })();`,
    ]);
    // Listened for first: the child may end before close() returns.
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    for (let i = 2; i <= 50; i++) tracer.write(event("c1c1c1c1", i));
    await tracer.close();
    await exited;
    const stored = await database.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE adw_id = $1", [
      "c1c1c1c1",
    ]);
    expect(Number(stored[0]?.n)).toBe(50);
    await db.close();
    await store.close();
  });

  it("an unreachable server is a usage error naming the URL without its password", async () => {
    let error: unknown;
    try {
      await openTraceStore("postgres://sssf:hunter2secret@127.0.0.1:1/trace");
    } catch (caught) {
      error = caught;
    }
    expect(isSssfError(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("postgres://sssf:***@127.0.0.1:1/trace cannot be reached");
    expect(message).not.toContain("hunter2secret");
  });

  it("read-only on a database without a trace says so", async () => {
    const empty = await createTestDatabase();
    try {
      await expect(openTraceStore(empty.url, { readonly: true })).rejects.toThrow(/holds no sssf trace yet/);
    } finally {
      await empty.drop();
    }
  });
  it("a read-only connection refuses writes, as SQLite's does", async () => {
    const db = await openTraceStore(database.url, { readonly: true });
    try {
      await expect(db.run("UPDATE sessions SET archived = 1")).rejects.toThrow(/read-only transaction/);
      const row = await db.get<{ n: unknown }>("SELECT count(*) AS n FROM sessions");
      // Reads work: a count (PostgreSQL's BIGINT may come back as text).
      expect(String(row?.n)).toMatch(/^\d+$/);
    } finally {
      await db.close();
    }
  });
});
