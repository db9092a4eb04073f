import { existsSync, readFileSync, renameSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import type { EventRow, TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import type { TraceStore } from "../../src/trace/store.js";
import { Tracer } from "../../src/trace/tracer.js";
import { openRawSqlite, readRows, scalar } from "../helpers/raw-sqlite.js";
import { asStored } from "../helpers/sandbox.js";
import { eventRow, phaseRow, sessionRecords, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("tracer");
const T0 = Date.UTC(2025, 0, 1);

/** The tracer's stores, closed after each test. */
const stores: TraceStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function openStore(location: string): Promise<TraceStore> {
  const store = await openTraceStore(location);
  stores.push(store);
  return store;
}

/** A tracer on its store, and a second connection (`db`) that reads what it committed. */
async function setup(options: { flushIntervalMs?: number; maxBatch?: number } = {}) {
  const dbPath = path.join(tempDir(), "adw_data", "sssf.db");
  const eventsFile = path.join(tempDir(), "adw_data", "sessions", "a1b2c3d4", "events.jsonl");
  const store = await openStore(dbPath);
  const db = openRawSqlite(dbPath);
  const tracer = new Tracer({ store, eventsFile, ...options });
  const fileRecords = (): TraceRecord[] =>
    readFileSync(eventsFile, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as TraceRecord);
  return { db, store, dbPath, eventsFile, tracer, fileRecords };
}

function event(index: number, overrides: Partial<EventRow> = {}): TraceRecord {
  const id = `evt_${String(index).padStart(6, "0")}`;
  return { table: "events", row: eventRow("a1b2c3d4", id, new Date(T0 + index).toISOString(), overrides) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to 5 s) until `check` holds: a timer-triggered flush lands in its own time. */
async function eventually(check: () => boolean): Promise<void> {
  const until = Date.now() + 5_000;
  while (!check() && Date.now() < until) await sleep(10);
}

describe("Tracer", () => {
  it("writes every record to the events file and the db", async () => {
    const { db, tracer, fileRecords } = await setup();
    const records = sessionRecords("a1b2c3d4", T0);
    for (const record of records) tracer.write(record);
    await tracer.close();
    const lines = fileRecords();
    expect(lines).toHaveLength(records.length);
    expect(lines.map((line) => line.table)).toEqual(records.map((record) => record.table));
    expect(readRows(db, "phases")).toHaveLength(3);
    expect(readRows(db, "events")).toHaveLength(3 * 6);
    expect(tracer.stats.records).toBe(records.length);
    db.close();
  });

  it("flushes on its own after the interval", async () => {
    const { db, tracer, fileRecords } = await setup({ flushIntervalMs: 5 });
    tracer.write(event(1));
    expect(readRows(db, "events")).toHaveLength(0);
    await sleep(60);
    await eventually(() => readRows(db, "events").length === 1);
    expect(fileRecords()).toHaveLength(1);
    expect(readRows(db, "events")).toHaveLength(1);
    await tracer.close();
    db.close();
  });

  it("batches many writes into few flushes", async () => {
    const { db, tracer } = await setup({ maxBatch: 1000 });
    for (let index = 0; index < 5000; index += 1) tracer.write(event(index));
    // Five full batches were flushed by size; nothing is left for the timer.
    await eventually(() => tracer.stats.records === 5000);
    expect(tracer.stats).toMatchObject({ records: 5000, batches: 5 });
    for (let index = 5000; index < 5300; index += 1) tracer.write(event(index));
    await sleep(60);
    await eventually(() => tracer.stats.records === 5300);
    expect(tracer.stats).toMatchObject({ records: 5300, batches: 6 });
    expect(tracer.stats.maxBatchMs).toBeGreaterThan(0);
    await tracer.close();
    expect(readRows(db, "events")).toHaveLength(5300);
    db.close();
  });

  it("upserts by primary key: a phase written running then success is one success row", async () => {
    const { db, tracer, fileRecords } = await setup();
    const running = phaseRow("a1b2c3d4", 1, new Date(T0).toISOString());
    tracer.write({ table: "phases", row: running });
    await tracer.flush();
    tracer.write({
      table: "phases",
      row: { ...running, status: "success", ended_at: new Date(T0 + 5).toISOString() },
    });
    await tracer.close();
    expect(readRows(db, "phases")).toEqual([
      { ...running, status: "success", ended_at: new Date(T0 + 5).toISOString() },
    ]);
    expect(fileRecords().map((record) => (record.row as { status: string }).status)).toEqual([
      "running",
      "success",
    ]);
    db.close();
  });

  it("snapshots the row at write time", async () => {
    const { db, tracer } = await setup();
    const row = phaseRow("a1b2c3d4", 1, new Date(T0).toISOString());
    tracer.write({ table: "phases", row });
    row.status = "fail";
    await tracer.close();
    expect(readRows(db, "phases")[0]?.status).toBe("running");
    db.close();
  });

  it("appends to the file before the db and retries a busy batch in order without duplicating lines", async () => {
    const { db, store, dbPath, tracer, fileRecords } = await setup();
    await store.pragma("busy_timeout = 0");
    const other = openRawSqlite(dbPath);
    other.exec("BEGIN IMMEDIATE");
    const running = phaseRow("a1b2c3d4", 1, new Date(T0).toISOString());
    tracer.write({ table: "phases", row: running });
    await expect(tracer.flush()).resolves.toBeUndefined();
    expect(fileRecords()).toHaveLength(1);
    expect(scalar(other, "SELECT count(*) FROM phases")).toBe(0);
    tracer.write({ table: "phases", row: { ...running, status: "success" } });
    tracer.write(event(1));
    await expect(tracer.flush()).resolves.toBeUndefined();
    expect(fileRecords()).toHaveLength(3);
    expect(tracer.stats.records).toBe(0);
    other.exec("COMMIT");
    other.close();
    await tracer.flush();
    expect(readRows(db, "phases").map((phase) => phase.status)).toEqual(["success"]);
    expect(readRows(db, "events")).toHaveLength(1);
    expect(fileRecords()).toHaveLength(3);
    // Held here, the three records go in one retry.
    expect(tracer.stats).toMatchObject({ records: 3, batches: 1 });
    await tracer.close();
    db.close();
  });

  it.skipIf(!existsSync("/dev/full"))(
    "writes nothing to the db when the events file refuses the batch",
    async () => {
      const store = await openStore(path.join(tempDir(), "sssf.db"));
      const db = openRawSqlite(path.join(tempDir(), "sssf.db"));
      const tracer = new Tracer({ store, eventsFile: "/dev/full" });
      tracer.write(event(1));
      await expect(tracer.flush()).rejects.toThrow(/ENOSPC/);
      expect(readRows(db, "events")).toEqual([]);
      tracer.write(event(2));
      await expect(tracer.flush()).rejects.toThrow(/ENOSPC/);
      await expect(tracer.close()).rejects.toThrow(/ENOSPC/);
      expect(readRows(db, "events")).toEqual([]);
      db.close();
    },
  );

  it("close reports records a locked db never took, and keeps them in the file", async () => {
    const { db, store, dbPath, tracer, fileRecords } = await setup();
    await store.pragma("busy_timeout = 0");
    const other = openRawSqlite(dbPath);
    other.exec("BEGIN IMMEDIATE");
    tracer.write(event(1));
    await expect(tracer.close()).rejects.toThrow(/locked|busy/i);
    expect(fileRecords()).toHaveLength(1);
    other.exec("ROLLBACK");
    other.close();
    db.close();
  });

  it("redacts once, so the file and the db hold the same rows", async () => {
    const { db, eventsFile, tracer, fileRecords } = await setup();
    for (const record of sessionRecords("a1b2c3d4", T0)) tracer.write(record);
    await tracer.close();
    const text = readFileSync(eventsFile, "utf8");
    expect(text).not.toMatch(/sk-ant-api03|abc123|ghp_|abcdefgh12345678/);
    expect(text).toContain("[redacted:named-value]");
    const latest = new Map<string, unknown>();
    for (const record of fileRecords()) {
      if (record.table === "events" || record.table === "processes" || record.table === "envelopes") {
        latest.set(`${record.table}:${record.row.id}`, record.row);
      }
    }
    for (const table of ["events", "processes", "envelopes"] as const) {
      for (const row of readRows(db, table)) expect(row).toEqual(latest.get(`${table}:${row.id}`));
    }
    const payload = JSON.parse(readRows(db, "events").find((row) => row.type === "tool_call")!.payload);
    expect(payload.args.command).toBe("ANTHROPIC_API_KEY=[redacted:anthropic-api-key] pi");
    expect(readRows(db, "processes")[0]?.command).toBe(
      "OPENAI_API_KEY=[redacted:named-value] pi --mode json",
    );
    db.close();
  });

  it("keeps good records of a batch and reports a bad one from the next flush", async () => {
    const { db, tracer } = await setup({ flushIntervalMs: 1 });
    tracer.write(event(1));
    // A value neither driver can bind, in the file as in memory.
    tracer.write(event(2, { ok: { bad: true } as unknown as number }));
    tracer.write(event(3));
    await sleep(40);
    await eventually(() => readRows(db, "events").length === 2);
    expect(readRows(db, "events").map((row) => row.id)).toEqual(["evt_000001", "evt_000003"]);
    await expect(tracer.flush()).rejects.toThrow(/bind|bound|type/);
    await expect(tracer.flush()).resolves.toBeUndefined();
    await tracer.close();
    db.close();
  });

  it("refuses writes after close, and close is idempotent", async () => {
    const { db, tracer } = await setup();
    await tracer.close();
    await tracer.close();
    let thrown: unknown;
    try {
      tracer.write(event(1));
    } catch (error) {
      thrown = error;
    }
    expect(isSssfError(thrown)).toBe(true);
    db.close();
  });

  it("stores every event of a flood of 50,000", async () => {
    const { db, tracer } = await setup();
    for (let index = 0; index < 50_000; index += 1) {
      tracer.write(
        event(index, { type: "tool_call", name: `bash: ls -la src/${index}`, payload: `{"i":${index}}` }),
      );
    }
    await tracer.close();
    // Every event lands; the rate is bench/trace-ingest.mjs's to measure.
    expect(readRows(db, "events")).toHaveLength(50_000);
    db.close();
  });
});

describe("Tracer floods, other connections and a busy database", () => {
  it("stores a flood, and the db holds what the file holds", async () => {
    const { db, tracer, fileRecords } = await setup();
    for (let index = 0; index < 20_000; index += 1)
      tracer.write(
        event(index, {
          type: "tool_call",
          name: `bash: echo ${index} \u0000 "q"`,
          payload: `{"i":${index}}`,
        }),
      );
    await tracer.close();
    const rows = readRows(db, "events");
    expect(rows).toHaveLength(20_000);
    const filed = new Map(
      fileRecords()
        .filter((record) => record.table === "events")
        .map((record) => [(record.row as EventRow).id, record.row]),
    );
    // The file keeps a NUL; a db whose driver cuts text at one holds U+FFFD in its place (asStored).
    for (const row of rows) {
      const inFile = filed.get(row.id) as EventRow;
      expect(row).toEqual({ ...inFile, name: asStored(inFile.name) });
    }
    db.close();
  });

  it("commits a trickle in the flush itself: another connection reads it at once", async () => {
    const { db, dbPath, tracer } = await setup();
    tracer.write(event(1));
    await tracer.flush();
    // Readable at once from another connection: the rows were committed by the flush itself.
    const other = openRawSqlite(dbPath, { readonly: true });
    expect(scalar(other, "SELECT count(*) FROM events")).toBe(1);
    other.close();
    await tracer.close();
    db.close();
  });

  it("keeps writing through its connection when the database file is renamed under it", async () => {
    const { db, store, dbPath, eventsFile } = await setup();
    // The reading connection has the file (and its WAL) open before the rename, as the tracer's has.
    expect(readRows(db, "events")).toEqual([]);
    renameSync(dbPath, `${dbPath}.moved`);
    const tracer = new Tracer({ store, eventsFile });
    for (let index = 0; index < 1_000; index += 1) tracer.write(event(index));
    await tracer.close();
    expect(readRows(db, "events")).toHaveLength(1_000);
    expect(existsSync(dbPath)).toBe(false);
    db.close();
  });

  it("keeps the order of batches a busy database held, and reports records it never took", async () => {
    const { db, store, dbPath, eventsFile } = await setup();
    await store.pragma("busy_timeout = 50");
    const tracer = new Tracer({ store, eventsFile, maxBatch: 100 });
    const running = phaseRow("a1b2c3d4", 1, new Date(T0).toISOString());
    const other = openRawSqlite(dbPath);
    other.exec("BEGIN IMMEDIATE");
    tracer.write({ table: "phases", row: running });
    for (let index = 0; index < 450; index += 1) tracer.write(event(index));
    tracer.write({ table: "phases", row: { ...running, status: "success" } });
    await tracer.flush();
    expect(scalar(other, "SELECT count(*) FROM events")).toBe(0);
    other.exec("COMMIT");
    await tracer.flush();
    expect(readRows(db, "phases").map((phase) => phase.status)).toEqual(["success"]);
    expect(readRows(db, "events")).toHaveLength(450);
    other.exec("BEGIN IMMEDIATE");
    tracer.write(event(999));
    await expect(tracer.close()).rejects.toThrow(/locked|busy/i);
    other.exec("ROLLBACK");
    other.close();
    db.close();
  });
});
