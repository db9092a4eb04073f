import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { claimSession, type SessionOwner } from "../../src/trace/session-fence.js";
import type { TraceStore } from "../../src/trace/store.js";
import { Tracer } from "../../src/trace/tracer.js";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { eventRow, sessionRow, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("fence");
const ADW = "fe0ce000";
const A: SessionOwner = { host: "host-a", pid: 101 };
const B: SessionOwner = { host: "host-b", pid: 202 };
let counter = 0;

function event(name: string): TraceRecord {
  counter += 1;
  const id = `evt_${String(counter).padStart(6, "0")}`;
  return {
    table: "events",
    row: eventRow(ADW, id, new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(), { name }),
  };
}

async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A fenced tracer of `owner` on `db`, and what its fence heard. */
function fencedTracer(store: TraceStore, owner: SessionOwner, file: string) {
  const heard: (SessionOwner | null)[] = [];
  const tracer = new Tracer({
    store,
    eventsFile: path.join(tempDir(), file),
    fence: { adwId: ADW, owner, onFenced: (holder) => heard.push(holder) },
  });
  return { tracer, heard, file: path.join(tempDir(), file) };
}

const names = async (db: TraceStore) =>
  (await db.all<{ name: string }>("SELECT name FROM events WHERE adw_id = ? ORDER BY id", [ADW])).map(
    (row) => row.name,
  );

function fenceSuite(open: () => Promise<TraceStore>) {
  it("an attempt whose session was claimed writes nothing more to the db, and keeps writing its file", async () => {
    const db = await open();
    const a = fencedTracer(db, A, "a/events.jsonl");
    a.tracer.write({ table: "sessions", row: sessionRow(ADW, new Date().toISOString(), A) });
    a.tracer.write(event("a before"));
    await a.tracer.flush();
    expect(await names(db)).toEqual(["a before"]);

    // The worker taking over claims the row from the owner it saw; a second claim from A fails.
    expect(await claimSession(db, ADW, A, B)).toBe(true);
    expect(await claimSession(db, ADW, A, { host: "host-c", pid: 303 })).toBe(false);

    a.tracer.write(event("a after the claim"));
    a.tracer.write({
      table: "sessions",
      row: sessionRow(ADW, new Date().toISOString(), { ...A, status: "fail" }),
    });
    await a.tracer.flush();
    await eventually(() => a.heard.length === 1);
    expect(a.heard).toEqual([B]);
    expect(a.tracer.fenced).toBe(true);
    expect(await names(db)).toEqual(["a before"]);
    const row = await db.get("SELECT host, pid, status FROM sessions WHERE adw_id = ?", [ADW]);
    expect(row).toEqual({ ...B, status: "running" });

    // The new owner writes; the fenced one goes on into its file only, and closes without an error.
    const b = fencedTracer(db, B, "b/events.jsonl");
    b.tracer.write(event("b"));
    await b.tracer.flush();
    a.tracer.write(event("a later"));
    await a.tracer.close();
    await b.tracer.close();
    expect(await names(db)).toEqual(["a before", "b"]);
    const inFile = readFileSync(a.file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).row.name);
    expect(inFile).toContain("a after the claim");
    expect(inFile).toContain("a later");
    expect(a.heard).toHaveLength(1);
    expect(b.heard).toEqual([]);
    await db.close();
  });

  it("an idle attempt notices within seconds that another process claimed its session", async () => {
    const db = await open();
    const a = fencedTracer(db, A, "idle-a/events.jsonl");
    a.tracer.write({ table: "sessions", row: sessionRow(ADW, new Date().toISOString(), A) });
    await a.tracer.flush();
    expect(await claimSession(db, ADW, A, B)).toBe(true);
    await eventually(() => a.heard.length > 0, 5000);
    expect(a.heard).toEqual([B]);
    await a.tracer.close();
    await db.close();
  });
}

describe("fencing a session's writers, SQLite", () => {
  fenceSuite(() => openTraceStore(path.join(tempDir(), "sssf.db")));
});

describePostgres("fencing a session's writers, PostgreSQL", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  // One database for the suite: each test starts from an empty sessions and events table.
  fenceSuite(async () => {
    const db = await openTraceStore(database.url);
    await db.exec("DELETE FROM events; DELETE FROM sessions");
    return db;
  });
});
