import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TraceRecord } from "../../src/trace/events.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import type { TraceStore } from "../../src/trace/store.js";
import { Tracer } from "../../src/trace/tracer.js";
import { eventRow, useTempDir } from "../trace/trace-fixtures.js";

// The tracer's one hook for the OpenTelemetry export: each batch appended to events.jsonl, redacted, in
// order; a consumer that throws changes nothing for the trace.

const tempDir = useTempDir("tracer-hook");
const stores: TraceStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const SECRET =
  "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-abcdefgh";

function records(count: number): TraceRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    table: "events" as const,
    row: eventRow(
      "a1b2c3d4",
      `evt_${String(i).padStart(4, "0")}`,
      new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
      {
        payload: JSON.stringify({ note: `key ${SECRET}` }),
      },
    ),
  }));
}

async function tracerWith(onAppended: (batch: readonly TraceRecord[]) => void) {
  const store = await openTraceStore(path.join(tempDir(), "sssf.db"));
  stores.push(store);
  const eventsFile = path.join(tempDir(), "sessions", "a1b2c3d4", "events.jsonl");
  return { tracer: new Tracer({ store, eventsFile, maxBatch: 3, onAppended }), eventsFile };
}

describe("Tracer onAppended", () => {
  it("gets every record the file got, redacted, in order, batch by batch", async () => {
    const seen: TraceRecord[][] = [];
    const { tracer, eventsFile } = await tracerWith((batch) => seen.push([...batch]));
    for (const record of records(7)) tracer.write(record);
    await tracer.close();
    const inFile = readFileSync(eventsFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(seen.flat()).toEqual(inFile);
    expect(seen.length).toBeGreaterThan(1);
    expect(JSON.stringify(seen)).not.toContain(SECRET);
    expect(JSON.stringify(seen)).toContain("[redacted:");
  });

  it("a consumer that throws changes nothing for the file or the store", async () => {
    let calls = 0;
    const { tracer, eventsFile } = await tracerWith(() => {
      calls += 1;
      throw new Error("consumer broke");
    });
    for (const record of records(5)) tracer.write(record);
    await tracer.close();
    expect(calls).toBeGreaterThan(0);
    expect(readFileSync(eventsFile, "utf8").trim().split("\n")).toHaveLength(5);
    const [count] = await (stores[0] as TraceStore).all<{ n: number }>("SELECT count(*) AS n FROM events");
    expect(count?.n).toBe(5);
  });
});
