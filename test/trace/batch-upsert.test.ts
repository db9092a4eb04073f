import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSssfError } from "../../src/errors/index.js";
import { createBatchUpserter, ROWS_PER_STATEMENT, upsertSql } from "../../src/trace/batch-upsert.js";
import { createUpserter, openTraceDb } from "../../src/trace/database.js";
import type { EventRow, TraceRecord, TraceTable } from "../../src/trace/events.js";
import { readTable } from "../../src/trace/queries.js";
import type { TraceDb } from "../../src/trace/sqlite.js";
import { eventRow, phaseRow, sessionRecords, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("batch-upsert");
const T0 = Date.UTC(2025, 0, 1);

let opened = 0;
function freshDb(): TraceDb {
  opened += 1;
  return openTraceDb(path.join(tempDir(), `sssf-${opened}.db`));
}

/** Every row of every table, in rowid order (the order the rows were first inserted, replaced or not). */
function dump(db: TraceDb): Record<string, unknown[]> {
  const tables: TraceTable[] = ["sessions", "phases", "events", "envelopes", "gate_results", "processes"];
  return Object.fromEntries(
    tables.map((table) => [
      table,
      db.prepare(`SELECT rowid AS _rowid, * FROM ${table} ORDER BY rowid`).all(),
    ]),
  );
}

/** The db after upserting `records` one row per statement, and after upserting them in batches. */
function bothWays(records: readonly TraceRecord[], batchSizes: readonly number[] = [records.length]) {
  const one = freshDb();
  const upsert = createUpserter(one);
  one
    .transaction(() => {
      for (const record of records) upsert(record);
    })
    .immediate();
  const many = freshDb();
  const upsertBatch = createBatchUpserter(many);
  let start = 0;
  for (const size of batchSizes) {
    many.transaction(() => upsertBatch(records.slice(start, start + size))).immediate();
    start += size;
  }
  const result = { single: dump(one), batched: dump(many) };
  one.close();
  many.close();
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

describe("createBatchUpserter", () => {
  it.each([1, 99, 100, 101, 1000])("stores %i events exactly as one-row upserts do", (count) => {
    const { single, batched } = bothWays(events(count));
    expect(single.events).toHaveLength(count);
    expect(batched).toEqual(single);
  });

  it("keeps the order of rows with the same key: the last one wins, inside one statement and across", () => {
    const first = events(ROWS_PER_STATEMENT + 7);
    // The same ids again, rewritten: some land in the statement of their first version, some in a later one.
    const again = events(40, 90).map((record) => ({
      table: "events" as const,
      row: { ...(record.row as EventRow), name: `${(record.row as EventRow).name} (again)`, ok: 1 },
    }));
    const records = [...first.slice(0, 95), ...again.slice(0, 3), ...first.slice(95), ...again.slice(3)];
    const { single, batched } = bothWays(records);
    expect(batched).toEqual(single);
    const rows = single.events as EventRow[];
    expect(rows.find((row) => row.id === "evt_000091")?.name).toBe("bash: echo 91 (again)");
    expect(rows.find((row) => row.id === "evt_000129")?.name).toBe("bash: echo 129 (again)");
  });

  it("stores a session's mixed tables in order, in batches of any size", () => {
    const records = sessionRecords("a1b2c3d4", T0);
    expect(bothWays(records, [5, 1, records.length]).batched).toEqual(bothWays(records).single);
  });

  it("matches one-row upserts for any mix of tables, keys and batch sizes (fixed seed)", () => {
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
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 150 }), { minLength: 1, maxLength: 6 }),
        (records, sizes) => {
          const { single, batched } = bothWays(records, [...sizes, records.length]);
          expect(batched).toEqual(single);
        },
      ),
      { seed: 0x0ba7_c4ed, numRuns: 60 },
    );
  });

  it("writes a missing field as null", () => {
    const db = freshDb();
    const { ok: _ok, ...row } = (events(1)[0] as TraceRecord).row as EventRow;
    db.transaction(() => createBatchUpserter(db)([{ table: "events", row: row as EventRow }])).immediate();
    expect(readTable(db, "events")[0]?.ok).toBeNull();
    db.close();
  });

  it("refuses an unknown table with a usage error", () => {
    const db = freshDb();
    let thrown: unknown;
    try {
      createBatchUpserter(db)([{ table: "nope", row: {} } as unknown as TraceRecord]);
    } catch (error) {
      thrown = error;
    }
    expect(isSssfError(thrown) && thrown.code).toBe("usage");
    db.close();
  });

  it("stores none of a failing statement's rows and throws the driver's error", () => {
    const db = freshDb();
    const records = events(10);
    (records[4]?.row as { name: unknown }).name = null;
    const upsert = createBatchUpserter(db, 8);
    expect(() => db.transaction(() => upsert(records)).immediate()).toThrow(/NOT NULL/);
    expect(readTable(db, "events")).toEqual([]);
    db.close();
  });
});
