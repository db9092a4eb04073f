import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import {
  getSession,
  listAgentSessions,
  listEnvelopes,
  listEvents,
  listGateResults,
  listPhases,
  listProcesses,
  listSessions,
  maxPhaseNumber,
  readTable,
} from "../../src/trace/store-queries.js";
import { at, eventRow, phaseRow, sessionRecords, sessionRow, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("queries");
const T0 = Date.UTC(2025, 0, 1);

async function seededDb() {
  const db = await openTraceStore(path.join(tempDir(), "sssf.db"));
  const upsert = (record: TraceRecord) => db.upsert([record]);
  // The later session first, tables grouped (each row's own history stays in order): the queries, not the
  // insertion order, must produce the order.
  for (const adwId of ["b2c3d4e5", "a1b2c3d4"]) {
    const base = adwId === "a1b2c3d4" ? T0 : T0 + 86_400_000;
    const records = sessionRecords(adwId, base).sort((x, y) => y.table.localeCompare(x.table));
    for (const record of records) await upsert(record);
  }
  await upsert({
    table: "sessions",
    row: sessionRow("c3d4e5f6", at(T0, 172_800_000), { status: "success", archived: 1 }),
  });
  return { db, upsert };
}

describe("trace queries", async () => {
  it("lists sessions newest first, hiding archived ones unless asked, filtered by status", async () => {
    const { db } = await seededDb();
    expect((await listSessions(db)).map((row) => row.adw_id)).toEqual(["b2c3d4e5", "a1b2c3d4"]);
    expect((await listSessions(db, { includeArchived: true })).map((row) => row.adw_id)).toEqual([
      "c3d4e5f6",
      "b2c3d4e5",
      "a1b2c3d4",
    ]);
    expect((await listSessions(db, { includeArchived: true, limit: 1 })).map((row) => row.adw_id)).toEqual([
      "c3d4e5f6",
    ]);
    expect(
      (await listSessions(db, { includeArchived: true, status: "success" })).map((row) => row.adw_id),
    ).toEqual(["c3d4e5f6"]);
    expect(await listSessions(db, { status: "running" })).toEqual([]);
    expect((await getSession(db, "a1b2c3d4"))?.status).toBe("fail");
    expect(await getSession(db, "zzzz")).toBeUndefined();
    await db.close();
  });

  it("lists a session's rows in their documented order", async () => {
    const { db, upsert } = await seededDb();
    await upsert({ table: "phases", row: phaseRow("a1b2c3d4", 10, at(T0, 5)) });
    expect((await listPhases(db, "a1b2c3d4")).map((row) => row.number)).toEqual([1, 2, 3, 10]);
    const events = await listEvents(db, "a1b2c3d4");
    expect(events).toHaveLength(18);
    const keys = events.map((row) => `${row.started_at} ${row.id}`);
    expect(keys).toEqual([...keys].sort());
    await upsert({ table: "events", row: eventRow("a1b2c3d4", "evt_0", events[0]!.started_at) });
    expect((await listEvents(db, "a1b2c3d4", { limit: 2 })).map((row) => row.id)).toEqual([
      "evt_0",
      events[0]!.id,
    ]);
    const tools = await listEvents(db, "a1b2c3d4", { type: "tool_call" });
    expect(tools).toHaveLength(12);
    expect(tools.every((row) => row.type === "tool_call" && row.adw_id === "a1b2c3d4")).toBe(true);
    expect((await listEnvelopes(db, "a1b2c3d4")).map((row) => row.id)).toEqual(
      [1, 2, 3].flatMap((phase) => [1, 2].map((attempt) => `env_a1b2c3d4_${phase}_${attempt}`)),
    );
    expect((await listGateResults(db, "a1b2c3d4")).map((row) => row.ok)).toEqual([1, 1, 0]);
    expect((await listProcesses(db, "a1b2c3d4")).map((row) => [row.pid, row.status])).toEqual([
      [4001, "exited"],
      [4002, "exited"],
      [4003, "exited"],
    ]);
    expect(await listAgentSessions(db, "a1b2c3d4")).toMatchObject([{ agent: "builder", sends: 3 }]);
    expect(await maxPhaseNumber(db, "a1b2c3d4")).toBe(10);
    expect(await maxPhaseNumber(db, "nobody")).toBe(0);
    await db.close();
  });

  it("reads whole tables ordered by primary key and refuses other names", async () => {
    const { db } = await seededDb();
    const ids = (await readTable(db, "events")).map((row) => row.id);
    expect(ids).toEqual([...ids].sort());
    expect((await readTable(db, "agent_sessions")).map((row) => row.adw_id)).toEqual([
      "a1b2c3d4",
      "b2c3d4e5",
    ]);
    await expect(readTable(db, "sqlite_master" as "events")).rejects.toThrow(/Unknown trace table/);
    await db.close();
  });

  // Its speed is bench/sessions-list.mjs's to measure (no timed assertions in tests); here, the index it relies on.
  it("lists 10,000 sessions newest first, through the started_at index", async () => {
    const db = await openTraceStore(path.join(tempDir(), "many.db"));
    const records: TraceRecord[] = [];
    for (let index = 0; index < 10_000; index += 1) {
      const adwId = `s${String(index).padStart(7, "0")}`;
      records.push({
        table: "sessions",
        row: sessionRow(adwId, at(T0, index * 1000), { archived: index % 10 === 0 ? 1 : 0 }),
      });
    }
    await db.transaction((tx) => tx.upsert(records));
    const all = await listSessions(db, { limit: 10_000, includeArchived: true });
    expect(all).toHaveLength(10_000);
    expect(all[0]?.adw_id).toBe("s0009999");
    expect(await listSessions(db, { limit: 10_000 })).toHaveLength(9_000);
    const plan = await db.all<{ detail: string }>(
      "EXPLAIN QUERY PLAN SELECT * FROM sessions WHERE archived = 0 ORDER BY started_at DESC LIMIT 10",
    );
    expect(plan.map((row) => row.detail).join(" ")).toMatch(/idx_sessions_started/);
    await db.close();
  });
});
