import path from "node:path";
import { describe, expect, it } from "vitest";
import { createUpserter, openTraceDb } from "../../src/trace/database.js";
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
} from "../../src/trace/queries.js";
import { at, eventRow, phaseRow, sessionRecords, sessionRow, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("queries");
const T0 = Date.UTC(2025, 0, 1);

function seededDb() {
  const db = openTraceDb(path.join(tempDir(), "sssf.db"));
  const upsert = createUpserter(db);
  // The later session first, tables grouped (each row's own history stays in order): the queries, not the
  // insertion order, must produce the order.
  for (const adwId of ["b2c3d4e5", "a1b2c3d4"]) {
    const base = adwId === "a1b2c3d4" ? T0 : T0 + 86_400_000;
    const records = sessionRecords(adwId, base).sort((x, y) => y.table.localeCompare(x.table));
    for (const record of records) upsert(record);
  }
  upsert({
    table: "sessions",
    row: sessionRow("c3d4e5f6", at(T0, 172_800_000), { status: "success", archived: 1 }),
  });
  return { db, upsert };
}

describe("trace queries", () => {
  it("lists sessions newest first, hiding archived ones unless asked, filtered by status", () => {
    const { db } = seededDb();
    expect(listSessions(db).map((row) => row.adw_id)).toEqual(["b2c3d4e5", "a1b2c3d4"]);
    expect(listSessions(db, { includeArchived: true }).map((row) => row.adw_id)).toEqual([
      "c3d4e5f6",
      "b2c3d4e5",
      "a1b2c3d4",
    ]);
    expect(listSessions(db, { includeArchived: true, limit: 1 }).map((row) => row.adw_id)).toEqual([
      "c3d4e5f6",
    ]);
    expect(listSessions(db, { includeArchived: true, status: "success" }).map((row) => row.adw_id)).toEqual([
      "c3d4e5f6",
    ]);
    expect(listSessions(db, { status: "running" })).toEqual([]);
    expect(getSession(db, "a1b2c3d4")?.status).toBe("fail");
    expect(getSession(db, "zzzz")).toBeUndefined();
    db.close();
  });

  it("lists a session's rows in their documented order", () => {
    const { db, upsert } = seededDb();
    upsert({ table: "phases", row: phaseRow("a1b2c3d4", 10, at(T0, 5)) });
    expect(listPhases(db, "a1b2c3d4").map((row) => row.number)).toEqual([1, 2, 3, 10]);
    const events = listEvents(db, "a1b2c3d4");
    expect(events).toHaveLength(18);
    const keys = events.map((row) => `${row.started_at} ${row.id}`);
    expect(keys).toEqual([...keys].sort());
    upsert({ table: "events", row: eventRow("a1b2c3d4", "evt_0", events[0]!.started_at) });
    expect(listEvents(db, "a1b2c3d4", { limit: 2 }).map((row) => row.id)).toEqual(["evt_0", events[0]!.id]);
    const tools = listEvents(db, "a1b2c3d4", { type: "tool_call" });
    expect(tools).toHaveLength(12);
    expect(tools.every((row) => row.type === "tool_call" && row.adw_id === "a1b2c3d4")).toBe(true);
    expect(listEnvelopes(db, "a1b2c3d4").map((row) => row.id)).toEqual(
      [1, 2, 3].flatMap((phase) => [1, 2].map((attempt) => `env_a1b2c3d4_${phase}_${attempt}`)),
    );
    expect(listGateResults(db, "a1b2c3d4").map((row) => row.ok)).toEqual([1, 1, 0]);
    expect(listProcesses(db, "a1b2c3d4").map((row) => [row.pid, row.status])).toEqual([
      [4001, "exited"],
      [4002, "exited"],
      [4003, "exited"],
    ]);
    expect(listAgentSessions(db, "a1b2c3d4")).toMatchObject([{ agent: "builder", sends: 3 }]);
    expect(maxPhaseNumber(db, "a1b2c3d4")).toBe(10);
    expect(maxPhaseNumber(db, "nobody")).toBe(0);
    db.close();
  });

  it("reads whole tables ordered by primary key and refuses other names", () => {
    const { db } = seededDb();
    const ids = readTable(db, "events").map((row) => row.id);
    expect(ids).toEqual([...ids].sort());
    expect(readTable(db, "agent_sessions").map((row) => row.adw_id)).toEqual(["a1b2c3d4", "b2c3d4e5"]);
    expect(() => readTable(db, "sqlite_master" as "events")).toThrow(/Unknown trace table/);
    db.close();
  });

  // Its speed is bench/sessions-list.mjs's to measure (no timed assertions in tests); here, the index it relies on.
  it("lists 10,000 sessions newest first, through the started_at index", () => {
    const db = openTraceDb(path.join(tempDir(), "many.db"));
    const upsert = createUpserter(db);
    db.transaction(() => {
      for (let index = 0; index < 10_000; index += 1) {
        const adwId = `s${String(index).padStart(7, "0")}`;
        upsert({
          table: "sessions",
          row: sessionRow(adwId, at(T0, index * 1000), { archived: index % 10 === 0 ? 1 : 0 }),
        });
      }
    })();
    const all = listSessions(db, { limit: 10_000, includeArchived: true });
    expect(all).toHaveLength(10_000);
    expect(all[0]?.adw_id).toBe("s0009999");
    expect(listSessions(db, { limit: 10_000 })).toHaveLength(9_000);
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT * FROM sessions WHERE archived = 0 ORDER BY started_at DESC LIMIT 10",
      )
      .all() as { detail: string }[];
    expect(plan.map((row) => row.detail).join(" ")).toMatch(/idx_sessions_started/);
    db.close();
  });
});
