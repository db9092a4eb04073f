import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Contender, chooseWinner, lossReason } from "../../src/engine/best-of/choose-winner.js";

// The winner rule by itself: among passing attempts, the fewest changed lines, then the lowest cost,
// then the earliest; none passing, no winner. Pass/fail orders generated with a fixed seed.

const attempts = fc
  .array(
    fc.record({
      passed: fc.boolean(),
      changedLines: fc.integer({ min: 0, max: 6 }),
      costUsd: fc.constantFrom(0, 0.01, 0.02, 0.5),
    }),
    { minLength: 1, maxLength: 7 },
  )
  .map((list) => list.map((a, i): Contender => ({ ...a, attempt: i + 1 })));

/** The rule spelled out the slow way: every other passing attempt is worse on the first key that differs. */
function beats(a: Contender, b: Contender): boolean {
  if (a.changedLines !== b.changedLines) return a.changedLines < b.changedLines;
  if (a.costUsd !== b.costUsd) return a.costUsd < b.costUsd;
  return a.attempt < b.attempt;
}

describe("chooseWinner", () => {
  it("picks the passing attempt no other passing attempt beats, whatever the order", () => {
    fc.assert(
      fc.property(attempts, fc.boolean(), (list, reversed) => {
        const shown = reversed ? [...list].reverse() : list;
        const choice = chooseWinner(shown);
        const passing = list.filter((a) => a.passed);
        if (passing.length === 0) {
          expect(choice.winner).toBeNull();
          return;
        }
        const winner = passing.find((a) => a.attempt === choice.winner);
        expect(winner).toBeDefined();
        for (const other of passing) if (other !== winner) expect(beats(winner!, other)).toBe(true);
        // Every loser's reason names the winner and the key it lost on.
        for (const other of passing)
          if (other !== winner) expect(lossReason(other, winner!)).toContain(`attempt ${winner!.attempt}`);
      }),
      { seed: 39, numRuns: 500 },
    );
  });

  it("says why, on the key that decided", () => {
    const a = (attempt: number, passed: boolean, changedLines: number, costUsd: number): Contender => ({
      attempt,
      passed,
      changedLines,
      costUsd,
    });
    expect(
      chooseWinner([a(1, false, 1, 0), a(2, true, 12, 0), a(3, true, 40, 0), a(4, true, 55, 0)]),
    ).toEqual({
      winner: 2,
      reason: "fewest changed lines (12 vs 40, 55)",
    });
    expect(chooseWinner([a(1, true, 3, 0.02), a(2, true, 3, 0.01)])).toEqual({
      winner: 2,
      reason: "lowest cost among 2 with 3 changed lines ($0.0100 vs $0.0200)",
    });
    expect(chooseWinner([a(1, true, 3, 0.01), a(2, true, 3, 0.01)])).toEqual({
      winner: 1,
      reason: "earliest of 2 tied on 3 changed lines and $0.0100",
    });
    expect(chooseWinner([a(1, false, 0, 0), a(2, true, 9, 1)])).toEqual({
      winner: 2,
      reason: "the only attempt that passed",
    });
    expect(chooseWinner([a(1, false, 0, 0), a(2, false, 0, 0)])).toEqual({
      winner: null,
      reason: "none of the 2 attempt(s) passed",
    });
  });
});
