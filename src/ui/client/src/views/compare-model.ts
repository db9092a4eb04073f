import type { PhaseRow } from "../../../../trace/events.js";

/** One line of a comparison: a phase of run A and the phase of run B it lines up with (either may be missing). */
export interface AlignedPair<P> {
  a: P | null;
  b: P | null;
}

/**
 * The phases of two runs lined up by name in order (a longest common subsequence of the names), the
 * unmatched ones of each run in between at their positions: a phase both runs have sits on one line.
 */
export function alignPhases<P extends Pick<PhaseRow, "name">>(
  a: readonly P[],
  b: readonly P[],
): AlignedPair<P>[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] =
        a[i]?.name === b[j]?.name
          ? (lcs[i + 1]?.[j + 1] ?? 0) + 1
          : Math.max(lcs[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const pairs: AlignedPair<P>[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const pa = a[i];
    const pb = b[j];
    if (pa !== undefined && pb !== undefined && pa.name === pb.name) {
      pairs.push({ a: pa, b: pb });
      i++;
      j++;
    } else if (pb === undefined || (pa !== undefined && (lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0))) {
      pairs.push({ a: pa ?? null, b: null });
      i++;
    } else {
      pairs.push({ a: null, b: pb });
      j++;
    }
  }
  return pairs;
}

/** Whether two numbers differ enough to highlight: by more than 10% of the larger (and not both tiny). */
export function differs(x: number | null, y: number | null): boolean {
  if (x === null || y === null) return x !== y;
  const big = Math.max(Math.abs(x), Math.abs(y));
  return big > 0 && Math.abs(x - y) / big > 0.1;
}
