import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import { columnNames } from "../../src/trace/columns.js";
import type { EventRow, TraceRecord, TraceTable } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import type { TraceStore } from "../../src/trace/store.js";
import { readTable } from "../../src/trace/store-queries.js";
import { ROWS_PER_STATEMENT, upsertPlan, upsertSql } from "../../src/trace/upsert-plan.js";
import { eventRow, phaseRow, sessionRecords, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("batch-upsert");
const T0 = Date.UTC(2025, 0, 1);

let opened = 0;
function freshDb(): Promise<TraceStore> {
  opened += 1;
  return openTraceStore(path.join(tempDir(), `sssf-${opened}.db`));
}

/** Every row of every table, in rowid order (the order the rows were first inserted, replaced or not). */
async function dump(db: TraceStore): Promise<Record<string, unknown[]>> {
  const tables: TraceTable[] = ["sessions", "phases", "events", "envelopes", "gate_results", "processes"];
  const rows = await Promise.all(
    tables.map(async (table) => [
      table,
      await db.all(`SELECT rowid AS _rowid, * FROM ${table} ORDER BY rowid`),
    ]),
  );
  return Object.fromEntries(rows);
}

/** The db after upserting `records` one row per statement, and after upserting them in batches. */
async function bothWays(records: readonly TraceRecord[], batchSizes: readonly number[] = [records.length]) {
  const one = await freshDb();
  await one.transaction(async (tx) => {
    for (const record of records) await tx.upsert([record]);
  });
  const many = await freshDb();
  let start = 0;
  for (const size of batchSizes) {
    await many.transaction((tx) => tx.upsert(records.slice(start, start + size)));
    start += size;
  }
  const result = { single: await dump(one), batched: await dump(many) };
  await one.close();
  await many.close();
  return result;
}

function events(count: number, from = 0): TraceRecord[] {
  return Array.from({ length: count }, (_, index) => {
    const i = from + index;
    return {
      table: "events",
      row: eventRow("a1b2c3d4", `evt_${String(i).padStart(6, "0")}`, new Date(T0 + i).toISOString(), {
        type: "tool_call",
        name: `bash: echo ${i}`,
        ok: i % 3 === 0 ? null : i % 2,
        ended_at: i % 5 === 0 ? null : new Date(T0 + i + 1).toISOString(),
        duration_ms: i % 5 === 0 ? null : 1,
        payload: JSON.stringify({ tool: "bash", args: { command: `echo ${i}` }, result: String(i) }),
      }),
    };
  });
}

describe("upsertSql", () => {
  it("writes one placeholder group per row", () => {
    expect(upsertSql("agent_sessions")).toBe(
      "INSERT OR REPLACE INTO agent_sessions (adw_id, agent, session_id, model, coding_agent, sends, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    expect(upsertSql("agent_sessions", 3).match(/\(\?, \?, \?, \?, \?, \?, \?, \?\)/g)).toHaveLength(3);
  });
});

describe("upsertPlan", () => {
  it("puts runs of one table in statements of 100 rows, the rest in powers of two", () => {
    expect(
      upsertPlan(events(100 + 64 + 4 + 1)).map(({ values }) => values.length / columnNames("events").length),
    ).toEqual([100, 64, 4, 1]);
    const mixed = [...events(2), ...sessionRecords("a1b2c3d4", T0).slice(0, 1), ...events(1, 2)];
    expect(upsertPlan(mixed).map(({ sql }) => sql.split(" ")[4])).toEqual(["events", "sessions", "events"]);
  });
});

describe("TraceStore.upsert in multi-row statements", () => {
  it.each([1, 99, 100, 101, 1000])("stores %i events exactly as one-row upserts do", async (count) => {
    const { single, batched } = await bothWays(events(count));
    expect(single.events).toHaveLength(count);
    expect(batched).toEqual(single);
  });

  it("keeps the order of rows with the same key: the last one wins, inside one statement and across", async () => {
    const first = events(ROWS_PER_STATEMENT + 7);
    // The same ids again, rewritten: some land in the statement of their first version, some in a later one.
    const again = events(40, 90).map((record) => ({
      table: "events" as const,
      row: { ...(record.row as EventRow), name: `${(record.row as EventRow).name} (again)`, ok: 1 },
    }));
    const records = [...first.slice(0, 95), ...again.slice(0, 3), ...first.slice(95), ...again.slice(3)];
    const { single, batched } = await bothWays(records);
    expect(batched).toEqual(single);
    const rows = single.events as EventRow[];
    expect(rows.find((row) => row.id === "evt_000091")?.name).toBe("bash: echo 91 (again)");
    expect(rows.find((row) => row.id === "evt_000129")?.name).toBe("bash: echo 129 (again)");
  });

  it("stores a session's mixed tables in order, in batches of any size", async () => {
    const records = sessionRecords("a1b2c3d4", T0);
    expect((await bothWays(records, [5, 1, records.length])).batched).toEqual(
      (await bothWays(records)).single,
    );
  });

  it("matches one-row upserts for any mix of tables, keys and batch sizes (fixed seed)", async () => {
    const record = fc.oneof(
      fc.record({ id: fc.nat({ max: 30 }), name: fc.string({ maxLength: 12 }), ok: fc.boolean() }).map(
        ({ id, name, ok }): TraceRecord => ({
          table: "events",
          row: eventRow("a1b2c3d4", `evt_${id}`, new Date(T0 + id).toISOString(), { name, ok: ok ? 1 : 0 }),
        }),
      ),
      fc
        .record({ number: fc.integer({ min: 1, max: 4 }), status: fc.constantFrom("running", "success") })
        .map(
          ({ number, status }): TraceRecord => ({
            table: "phases",
            row: phaseRow("a1b2c3d4", number, new Date(T0).toISOString(), { status }),
          }),
        ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 150 }), { minLength: 1, maxLength: 6 }),
        async (records, sizes) => {
          const { single, batched } = await bothWays(records, [...sizes, records.length]);
          expect(batched).toEqual(single);
        },
      ),
      { seed: 0x0ba7_c4ed, numRuns: 60 },
    );
  });

  it("writes a missing field as null", async () => {
    const db = await freshDb();
    const { ok: _ok, ...row } = (events(1)[0] as TraceRecord).row as EventRow;
    await db.transaction((tx) => tx.upsert([{ table: "events", row: row as EventRow }]));
    expect((await readTable(db, "events"))[0]?.ok).toBeNull();
    await db.close();
  });

  it("refuses an unknown table with a usage error", async () => {
    const db = await freshDb();
    let thrown: unknown;
    try {
      await db.upsert([{ table: "nope", row: {} } as unknown as TraceRecord]);
    } catch (error) {
      thrown = error;
    }
    expect(isSssfError(thrown) && thrown.code).toBe("usage");
    await db.close();
  });

  it("stores none of a failing statement's rows and throws the driver's error", async () => {
    const db = await freshDb();
    const records = events(10);
    (records[4]?.row as { name: unknown }).name = null;
    await expect(db.transaction((tx) => tx.upsert(records))).rejects.toThrow(/NOT NULL/);
    expect(await readTable(db, "events")).toEqual([]);
    await db.close();
  });
});
