import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { failing, garbage, ok, ReplayWorld } from "./replay-world.js";

/** What one agent call says, send by send: accepted, a gate or JSON correction first, or a failure. */
const FIRST_PATTERNS: Record<string, (i: number) => ScriptedTurn[]> = {
  ok: (i) => [ok(`plan ${i}`)],
  gateFix: (i) => [ok(`risky plan ${i}`), ok(`plan ${i}`)],
  jsonFix: (i) => [garbage, ok(`plan ${i}`)],
  both: (i) => [garbage, ok(`risky plan ${i}`), ok(`plan ${i}`)],
  gaveUp: (i) => [failing(`no plan ${i}`)],
  exhausted: (i) => [ok(`risky plan ${i}`), ok(`risky again ${i}`)],
};
const SECOND_PATTERNS: Record<string, (i: number) => ScriptedTurn[]> = {
  ok: (i) => [ok(`built ${i}`)],
  jsonFix: (i) => [garbage, ok(`built ${i}`)],
  gaveUp: (i) => [failing(`not built ${i}`)],
};
const FIRST_FAILS = new Set(["gaveUp", "exhausted"]);

describe("sssf replay: recorded runs replayed unchanged are all the same", () => {
  let world: ReplayWorld | undefined;
  afterEach(() => world?.cleanup());

  it("generated pass/fail/correction patterns (fast-check, fixed seed)", { timeout: 400_000 }, async () => {
    const run = fc.record({
      first: fc.constantFrom(...Object.keys(FIRST_PATTERNS)),
      second: fc.constantFrom(...Object.keys(SECOND_PATTERNS)),
    });
    const runs = fc.sample(run, { seed: 40, numRuns: 6 });
    // Every first pattern at least once among them, so each kind of record is replayed.
    const patterns = [...new Set([...runs.map((r) => r.first), "both", "exhausted", "jsonFix"])].map(
      (first, i) => ({ first, second: runs[i % runs.length]?.second ?? "ok" }),
    );
    const first = patterns.flatMap((p, i) => FIRST_PATTERNS[p.first]?.(i) ?? []);
    const second = patterns.flatMap((p, i) =>
      FIRST_FAILS.has(p.first) ? [] : (SECOND_PATTERNS[p.second]?.(i) ?? []),
    );
    world = new ReplayWorld({ first, second });
    world.workflow({ forbidden: "risky" });
    const ids: string[] = [];
    for (const [i, pattern] of patterns.entries()) {
      const { adwId, result } = await world.record(`run ${i}`);
      const accepted = !FIRST_FAILS.has(pattern.first) && pattern.second !== "gaveUp";
      expect(result.code, `${JSON.stringify(pattern)}\n${result.stdout}${result.stderr}`).toBe(
        accepted ? 0 : 1,
      );
      ids.push(adwId);
    }
    const { code, report } = await world.replayJson(["--since", "1h", "--workflow", "trio"]);
    expect(report.replays.map((r) => r.adw_id)).toEqual(ids);
    const differing = report.replays.flatMap((r) =>
      r.phases
        .filter((p) => p.outcome !== "same")
        .map((p) => `${r.adw_id} ${p.phase}: ${p.outcome} ${p.detail}`),
    );
    expect(differing).toEqual([]);
    expect(report.replays.map((r) => r.stopped)).toEqual(ids.map(() => null));
    expect(code).toBe(0);
  });
});
