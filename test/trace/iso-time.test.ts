import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoTime } from "../../src/trace/iso-time.js";

describe("isoTime", () => {
  it("is toISOString for every date, in any order of calls (fixed seed)", () => {
    const edges = [
      0, 999, 1000, 1_735_689_599_999, 1_735_689_600_000, 253_402_300_799_999, 253_402_300_800_000, -1,
      -62_198_755_200_000, 8.64e15, -8.64e15,
    ];
    for (const ms of edges) expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
    const near = fc.integer({ min: 1_735_689_590_000, max: 1_735_689_610_000 });
    const any = fc.integer({ min: -8.64e15, max: 8.64e15 });
    fc.assert(
      fc.property(fc.array(fc.oneof(near, any), { minLength: 1, maxLength: 50 }), (times) => {
        for (const ms of times) expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
      }),
      { seed: 0x150_7173, numRuns: 2000 },
    );
  });

  it("throws toISOString's RangeError for an invalid date", () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
