/** Which stored runs `sssf replay` takes: named ids, or `--since <duration>` with `--workflow <name>`. */

import { UsageError } from "../errors/usage-error.js";
import type { SessionRow } from "../trace/events.js";
import type { TraceSql } from "../trace/store.js";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `24h`, `7d`, `30m`, `90s`, `2w` in milliseconds; UsageError naming `--since` otherwise. */
export function parseSince(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(value.trim());
  const unit = match?.[2] === undefined ? undefined : UNITS[match[2]];
  if (match === null || unit === undefined || Number(match[1]) <= 0)
    throw new UsageError(
      `--since ${JSON.stringify(value)}: expected a duration such as 90s, 30m, 24h, 7d or 2w`,
      "--since",
    );
  return Number(match[1]) * unit;
}

/**
 * The sessions started within `sinceMs` of `now` (of `workflow` when given), oldest first; runs still
 * `running` are left out: their record is not complete yet.
 */
export async function selectRuns(
  db: TraceSql,
  options: { sinceMs: number | null; workflow: string | null; now?: Date },
): Promise<string[]> {
  const now = options.now ?? new Date();
  const from = options.sinceMs === null ? "" : new Date(now.getTime() - options.sinceMs).toISOString();
  const rows = await db.all<Pick<SessionRow, "adw_id" | "workflow" | "status">>(
    "SELECT adw_id, workflow, status FROM sessions WHERE started_at >= ? ORDER BY started_at, adw_id",
    [from],
  );
  return rows
    .filter(
      (row) => row.status !== "running" && (options.workflow === null || row.workflow === options.workflow),
    )
    .map((row) => row.adw_id);
}
