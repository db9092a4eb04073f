import type { PhaseCounts, Versioned } from "../../server/api-types.js";

type Row = { _v: number };

/**
 * `rows` with `incoming` merged in by `key`: a row replaces its copy when its `_v` is at least as large
 * (an upsert gives rewritten rows a larger rowid; the archive flag keeps it), new rows are appended.
 * Returns `rows` itself when nothing changed, so unchanged views skip rendering.
 */
export function mergeRows<T extends Row>(
  rows: readonly T[],
  incoming: readonly T[] | undefined,
  key: (row: T) => string,
): T[] {
  if (!incoming || incoming.length === 0) return rows as T[];
  const index = new Map<string, number>();
  for (const [i, row] of rows.entries()) index.set(key(row), i);
  let next: T[] | null = null;
  for (const row of incoming) {
    const at = index.get(key(row));
    const current = at === undefined ? undefined : (next ?? rows)[at];
    if (current !== undefined && current._v > row._v) continue;
    next ??= [...rows];
    if (at === undefined) {
      index.set(key(row), next.length);
      next.push(row);
    } else {
      next[at] = row;
    }
  }
  return next ?? (rows as T[]);
}

/** The newer of two copies of one row. */
export function newer<T extends Row>(current: T, incoming: T | undefined): T {
  return incoming !== undefined && incoming._v >= current._v ? incoming : current;
}

/** Counts with this tick's increments added. */
export function addCounts(
  counts: Record<string, PhaseCounts>,
  increments: Record<string, Partial<PhaseCounts>> | undefined,
): Record<string, PhaseCounts> {
  if (!increments) return counts;
  const next = { ...counts };
  for (const [phaseId, delta] of Object.entries(increments)) {
    const base = next[phaseId] ?? { tool_calls: 0, errors: 0, gate_fails: 0, attempts: 0, invalid: 0 };
    next[phaseId] = {
      tool_calls: base.tool_calls + (delta.tool_calls ?? 0),
      errors: base.errors + (delta.errors ?? 0),
      gate_fails: base.gate_fails + (delta.gate_fails ?? 0),
      attempts: base.attempts + (delta.attempts ?? 0),
      invalid: base.invalid + (delta.invalid ?? 0),
    };
  }
  return next;
}

/** By `started_at`, then id: the order the API uses for events. */
export function byStart<T extends Versioned<{ started_at: string; id: string }>>(a: T, b: T): number {
  return a.started_at < b.started_at
    ? -1
    : a.started_at > b.started_at
      ? 1
      : a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0;
}
