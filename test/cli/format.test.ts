/** The terminal's number formats: token counts are grouped exactly as `toLocaleString("en-US")` does. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatTokens } from "../../src/cli/format.js";

describe("formatTokens", () => {
  it("groups thousands like toLocaleString('en-US'), for any integer", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -1e6, max: 1e6 })), (n) => {
        expect(formatTokens(n)).toBe(n.toLocaleString("en-US"));
      }),
      { seed: 15, numRuns: 2000 },
    );
    for (const n of [0, 999, 1000, -1000, 1_234_567, Number.MAX_SAFE_INTEGER, 1.5, Number.NaN])
      expect(formatTokens(n)).toBe(n.toLocaleString("en-US"));
  });
});
