import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TraceRecord } from "../../src/trace/events.js";
import { recordBytes } from "../../src/trace/events-file.js";
import { eventRow } from "./trace-fixtures.js";

/** What `events.jsonl` holds, as plain text: each record's JSON on a line of its own. */
const recordLines = (records: readonly TraceRecord[]) =>
  records.map((record) => `${JSON.stringify(record)}\n`).join("");

const record = (name: string, payload = "{}"): TraceRecord => ({
  table: "events",
  row: eventRow("a1b2c3d4", "evt_1", "2025-01-01T00:00:00.000Z", { name, payload }),
});

describe("recordBytes", () => {
  it("is the UTF-8 of recordLines, for none, ASCII, wide characters, emoji and lone surrogates", () => {
    const cases: TraceRecord[][] = [
      [],
      [record("bash: echo 1")],
      [record("é"), record("ascii after a wide one"), record("日本語".repeat(200))],
      [record("emoji 😀 at the end 😀"), record("\ud800 lone \udfff"), record(`${"x".repeat(5000)}€`)],
      // Wide characters in every line: the buffer sized for one byte a unit grows again and again.
      Array.from({ length: 50 }, (_, index) => record(`${"€".repeat(index * 7)}😀${index}`, '{"a":"ü"}')),
    ];
    for (const records of cases)
      expect(recordBytes(records).equals(Buffer.from(recordLines(records), "utf8"))).toBe(true);
  });

  it("matches recordLines for any text", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 300 }), { maxLength: 20 }), (names) => {
        const records = names.map((name) => record(name, JSON.stringify({ name })));
        expect(recordBytes(records).equals(Buffer.from(recordLines(records), "utf8"))).toBe(true);
      }),
      { seed: 15, numRuns: 300 },
    );
  });
});
