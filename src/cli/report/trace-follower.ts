import { isUnavailable } from "../../trace/db-unavailable.js";
import type { EventRow, PhaseRow } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
import { getPhase, listEventsAfter } from "../../trace/store-queries.js";
import type { TraceReplay } from "./trace-replay.js";

/**
 * Prints a session's events as the trace gets them (`sssf tail`, `sssf run --engine restate`): each
 * `drain()` prints every event committed since the last one, in order, with its phase as it stands; a
 * database out of reach prints nothing until it is back. One drain at a time: await each.
 */
export function traceFollower(db: TraceSql, adwId: string, printer: TraceReplay): { drain(): Promise<void> } {
  let cursor = 0;
  const phases = new Map<string, PhaseRow>();
  const phaseOf = async (event: EventRow): Promise<PhaseRow | undefined> => {
    if (event.phase_id === null) return undefined;
    // A phase's end is printed from its final row; every other line needs only its name and number.
    const cached = phases.get(event.phase_id);
    if (cached !== undefined && event.type !== "phase_end") return cached;
    const row = await getPhase(db, event.phase_id);
    if (row !== undefined) phases.set(row.id, row);
    return row;
  };
  return {
    async drain() {
      try {
        for (;;) {
          const events = await listEventsAfter(db, adwId, cursor);
          for (const event of events) {
            const phase = await phaseOf(event);
            cursor = event._rowid;
            printer.event(event, phase);
          }
          if (events.length < 1000) return;
        }
      } catch (error) {
        // A PostgreSQL trace out of reach: the next drain goes on from the same cursor.
        if (!isUnavailable(error)) throw error;
      }
    },
  };
}
