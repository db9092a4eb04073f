/**
 * The winner rule of a best-of phase, by code alone (docs/reliability.md, "Best-of-N"): among the
 * attempts that passed (a valid envelope, every gate, the workflow's check), the fewest changed lines,
 * then the lowest cost, then the earliest.
 */

/** What the rule reads of one attempt. */
export interface Contender {
  /** 1-based. */
  attempt: number;
  passed: boolean;
  changedLines: number;
  costUsd: number;
}

/** The winner and one line saying why; `winner` null when no attempt passed. */
export interface Choice {
  winner: number | null;
  reason: string;
}

const usd = (value: number): string => `$${value.toFixed(4)}`;

/** Picks the winner of `attempts` (any order). */
export function chooseWinner(attempts: readonly Contender[]): Choice {
  const passing = attempts.filter((a) => a.passed);
  if (passing.length === 0)
    return { winner: null, reason: `none of the ${attempts.length} attempt(s) passed` };
  const ranked = [...passing].sort(
    (a, b) => a.changedLines - b.changedLines || a.costUsd - b.costUsd || a.attempt - b.attempt,
  );
  const [best, ...rest] = ranked as [Contender, ...Contender[]];
  if (rest.length === 0) return { winner: best.attempt, reason: "the only attempt that passed" };
  const others = rest.map((a) => a.changedLines);
  if (rest.every((a) => a.changedLines > best.changedLines))
    return {
      winner: best.attempt,
      reason: `fewest changed lines (${best.changedLines} vs ${others.join(", ")})`,
    };
  const tied = rest.filter((a) => a.changedLines === best.changedLines);
  if (tied.every((a) => a.costUsd > best.costUsd))
    return {
      winner: best.attempt,
      reason: `lowest cost among ${tied.length + 1} with ${best.changedLines} changed lines (${usd(best.costUsd)} vs ${tied.map((a) => usd(a.costUsd)).join(", ")})`,
    };
  return {
    winner: best.attempt,
    reason: `earliest of ${tied.filter((a) => a.costUsd === best.costUsd).length + 1} tied on ${best.changedLines} changed lines and ${usd(best.costUsd)}`,
  };
}

/** Why a passing attempt that did not win lost to `winner`. */
export function lossReason(loser: Contender, winner: Contender): string {
  if (loser.changedLines !== winner.changedLines)
    return `passed, but attempt ${winner.attempt} changed fewer lines (${winner.changedLines} vs ${loser.changedLines})`;
  if (loser.costUsd !== winner.costUsd)
    return `passed, but attempt ${winner.attempt} changed as many lines for less (${usd(winner.costUsd)} vs ${usd(loser.costUsd)})`;
  return `passed, tied with attempt ${winner.attempt}, which came earlier`;
}
