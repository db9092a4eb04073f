import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openTraceDb } from "../../src/trace/database.js";
import type { EventRow, TraceRecord } from "../../src/trace/events.js";
import { readTable } from "../../src/trace/queries.js";
import { Tracer } from "../../src/trace/tracer.js";
import { eventRow, useTempDir } from "./trace-fixtures.js";

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
    (count) => {
      const eventsFile = path.join(tempDir(), "events.jsonl");
      const db = openTraceDb(path.join(tempDir(), "sssf.db"));
      const tracer = new Tracer({ db, eventsFile });
      for (let index = 0; index < count; index += 1) {
        tracer.write(event(index));
        // Every 10th event is rewritten later (a span closed), often inside the same batch.
        if (index % 10 === 9) tracer.write(event(index - 5, { ok: 1, ended_at: new Date(T0).toISOString() }));
      }
      tracer.close();
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
      expect(JSON.stringify(readTable(db, "events"))).not.toContain(SECRET);
      const secretRow = rows.find((row) => row.id === "evt_000000");
      expect(JSON.parse(secretRow?.payload ?? "{}").args.command).toBe("ANTHROPIC_API_KEY=[REDACTED] pi 0");
      db.close();
    },
  );
});
