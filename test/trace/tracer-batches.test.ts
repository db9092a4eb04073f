import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { EventRow, TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import { Tracer } from "../../src/trace/tracer.js";
import { openRawSqlite, readRows } from "../helpers/raw-sqlite.js";
import { eventRow, phaseRow, useTempDir } from "./trace-fixtures.js";

const tempDir = useTempDir("tracer-batches");
const T0 = Date.UTC(2025, 0, 1);
const SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123";

function event(index: number, overrides: Partial<EventRow> = {}): TraceRecord {
  const secret = index % 7 === 0;
  const command = secret ? `ANTHROPIC_API_KEY=${SECRET} pi ${index}` : `echo ${index}`;
  return {
    table: "events",
    row: eventRow("a1b2c3d4", `evt_${String(index).padStart(6, "0")}`, new Date(T0 + index).toISOString(), {
      type: "tool_call",
      name: `bash: ${command}`,
      payload: JSON.stringify({ tool: "bash", args: { command }, result: secret ? SECRET : "ok" }),
      ...overrides,
    }),
  };
}

describe("Tracer batches", () => {
  it.each([1, 99, 100, 101, 1000, 4321])(
    "stores %i records in multi-row statements: redacted, in order, the same in the file and the db",
    async (count) => {
      const eventsFile = path.join(tempDir(), "events.jsonl");
      const store = await openTraceStore(path.join(tempDir(), "sssf.db"));
      const db = openRawSqlite(path.join(tempDir(), "sssf.db"));
      const tracer = new Tracer({ store, eventsFile });
      for (let index = 0; index < count; index += 1) {
        tracer.write(event(index));
        // Every 10th event is rewritten later (a span closed), often inside the same batch.
        if (index % 10 === 9) tracer.write(event(index - 5, { ok: 1, ended_at: new Date(T0).toISOString() }));
      }
      await tracer.close();
      const text = readFileSync(eventsFile, "utf8");
      expect(text).not.toContain(SECRET);
      const records = text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as TraceRecord);
      const latest = new Map<string, EventRow>();
      for (const record of records) latest.set((record.row as EventRow).id, record.row as EventRow);
      const rows = db.prepare("SELECT * FROM events ORDER BY rowid").all() as EventRow[];
      expect(rows).toHaveLength(count);
      expect(rows.map((row) => row.id)).toEqual(
        // Rowid order is the order of each id's last write: a rewrite replaces (deletes and re-inserts) the row.
        [...new Set(records.map((record) => (record.row as EventRow).id).reverse())].reverse(),
      );
      for (const row of rows) expect(row).toEqual(latest.get(row.id));
      expect(JSON.stringify(readRows(db, "events"))).not.toContain(SECRET);
      const secretRow = rows.find((row) => row.id === "evt_000000");
      expect(JSON.parse(secretRow?.payload ?? "{}").args.command).toBe(
        "ANTHROPIC_API_KEY=[redacted:anthropic-api-key] pi 0",
      );
      db.close();
      await store.close();
    },
  );
});

describe("Tracer batches of mixed records", () => {
  /**
   * Records whose values repeat the row above, change and change back, turn null and back, go missing or
   * are not finite, in runs of several tables.
   */
  function mixed(count: number): TraceRecord[] {
    const records: TraceRecord[] = [];
    for (let index = 0; index < count; index += 1) {
      const base = event(index);
      const row = base.row as EventRow;
      if (index % 3 === 0) row.parent_id = null;
      if (index % 5 === 0) row.agent = index % 10 === 0 ? "other" : null;
      if (index % 11 === 0) row.duration_ms = Number.NaN;
      if (index % 13 === 0) row.duration_ms = -0;
      if (index % 17 === 0) delete (row as Partial<EventRow>).ended_at;
      row.started_at = new Date(T0 + Math.floor(index / 4)).toISOString();
      records.push(base);
      if (index % 97 === 0)
        records.push({
          table: "phases",
          row: phaseRow("a1b2c3d4", index, new Date(T0 + index).toISOString()),
        });
      if (index % 89 === 0) records.push(event(index, { ok: 1, name: `rewritten ${index}` }));
    }
    return records;
  }

  it.each([
    [1, 1],
    [333, 37],
    [4321, 4000],
  ])(
    "%i records in flushes of %i: the db holds, in order, what a rebuild from the file reads",
    async (count, maxBatch) => {
      const dir = tempDir();
      const store = await openTraceStore(path.join(dir, "sssf.db"));
      const db = openRawSqlite(path.join(dir, "sssf.db"));
      const tracer = new Tracer({ store, eventsFile: path.join(dir, "events.jsonl"), maxBatch });
      for (const record of mixed(count)) tracer.write(record);
      await tracer.close();
      const events = db.prepare("SELECT * FROM events ORDER BY rowid").all() as EventRow[];
      const phases = db.prepare("SELECT * FROM phases ORDER BY rowid").all();
      db.close();
      await store.close();
      expect(events).toHaveLength(count);
      // The file's last record of each id, a missing field as null: what a rebuild stores.
      const filed = new Map<string, Record<string, unknown>>();
      for (const line of readFileSync(path.join(dir, "events.jsonl"), "utf8").split("\n")) {
        if (line === "") continue;
        const record = JSON.parse(line) as TraceRecord;
        const row = record.row as unknown as Record<string, unknown>;
        filed.set(`${record.table}:${String(row.id)}`, row);
      }
      for (const row of events) {
        const inFile = filed.get(`events:${row.id}`) as Record<string, unknown>;
        expect(row).toEqual({ ended_at: null, ...inFile });
      }
      expect(phases).toHaveLength([...filed.keys()].filter((key) => key.startsWith("phases:")).length);
      // Rows as a rebuild from the file reads them: NaN as null, -0 as 0, a missing field as null.
      if (count < 100) return;
      expect(events.find((row) => row.id === "evt_000011")?.duration_ms).toBeNull();
      expect(Object.is(events.find((row) => row.id === "evt_000013")?.duration_ms, 0)).toBe(true);
      expect(events.find((row) => row.id === "evt_000017")?.ended_at).toBeNull();
    },
  );
});
