import type { TraceTable } from "../../trace/events.js";
import type { LiveSubscription, PhaseCounts } from "./api-types.js";
import type { ChangedRow } from "./live-query.js";

type RunTable = "phases" | "agent_sessions";
type PhaseTable = "events" | "envelopes" | "gate_results" | "processes";

const RUN_TABLES: readonly RunTable[] = ["phases", "agent_sessions"];
const PHASE_TABLES: readonly PhaseTable[] = ["events", "envelopes", "gate_results", "processes"];
const COUNTED_EVENTS: Readonly<Record<string, keyof PhaseCounts>> = {
  tool_call: "tool_calls",
  error: "errors",
  gate_fail: "gate_fails",
};

interface RunPart {
  rows: Partial<Record<RunTable, string[]>>;
  counts: Record<string, Partial<PhaseCounts>>;
}

function push<K extends string>(target: Partial<Record<K, string[]>>, key: K, row: string): void {
  const rows = target[key];
  if (rows === undefined) target[key] = [row];
  else rows.push(row);
}

function add(counts: Record<string, Partial<PhaseCounts>>, phase: string, key: keyof PhaseCounts): void {
  const phaseCounts = counts[phase] ?? {};
  phaseCounts[key] = (phaseCounts[key] ?? 0) + 1;
  counts[phase] = phaseCounts;
}

/**
 * The `delta` messages of one hub tick, built from the changed rows once and shared by every client
 * with the same subscription: session rows go to everyone, a run's phases, agent sessions and count
 * increments to its watchers, and a phase's events, envelopes, gates and processes to that phase's.
 * Rows are spliced in as the JSON text SQLite built; nothing is parsed.
 */
export class TickMessages {
  readonly #tick: number;
  readonly #sessions: string[] = [];
  readonly #runs = new Map<string, RunPart>();
  readonly #phases = new Map<string, Partial<Record<PhaseTable, string[]>>>();
  readonly #cache = new Map<string, string | null>();

  constructor(tick: number, rows: readonly ChangedRow[]) {
    this.#tick = tick;
    for (const row of rows) this.#route(row);
  }

  #run(adw: string): RunPart {
    let part = this.#runs.get(adw);
    if (part === undefined) {
      part = { rows: {}, counts: {} };
      this.#runs.set(adw, part);
    }
    return part;
  }

  #route(row: ChangedRow): void {
    const table: TraceTable = row.t;
    if (table === "sessions") {
      this.#sessions.push(row.row);
    } else if (table === "steps") {
      // The resume journal: read by sssf resume, not shown live.
    } else if (table === "phases" || table === "agent_sessions") {
      push(this.#run(row.adw).rows, table, row.row);
    } else if (row.phase !== null) {
      let part = this.#phases.get(row.phase);
      if (part === undefined) {
        part = {};
        this.#phases.set(row.phase, part);
      }
      push(part, table, row.row);
      // Tool calls, errors, failed gates and envelopes are written once: each row counts once.
      const counts = this.#run(row.adw).counts;
      const counted = table === "events" ? COUNTED_EVENTS[String(row.k)] : undefined;
      if (counted !== undefined) add(counts, row.phase, counted);
      if (table === "envelopes") {
        add(counts, row.phase, "attempts");
        if (Number(row.k) === 0) add(counts, row.phase, "invalid");
      }
    }
  }

  /** The message text (`LiveDelta` JSON) for `subscription`, or null when nothing concerns it. */
  messageFor(subscription: LiveSubscription): string | null {
    const key = `${subscription.adwId ?? ""}\u0000${subscription.phaseId ?? ""}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const parts: string[] = [];
    if (this.#sessions.length > 0) parts.push(`"sessions":[${this.#sessions.join(",")}]`);
    const run = subscription.adwId === null ? undefined : this.#runs.get(subscription.adwId);
    if (run !== undefined) {
      for (const table of RUN_TABLES) {
        const rows = run.rows[table];
        if (rows) parts.push(`"${table}":[${rows.join(",")}]`);
      }
      if (Object.keys(run.counts).length > 0) parts.push(`"counts":${JSON.stringify(run.counts)}`);
    }
    const phase = subscription.phaseId === null ? undefined : this.#phases.get(subscription.phaseId);
    if (phase !== undefined) {
      for (const table of PHASE_TABLES) {
        const rows = phase[table];
        if (rows) parts.push(`"${table}":[${rows.join(",")}]`);
      }
    }
    const message = parts.length === 0 ? null : `{"tick":${this.#tick},${parts.join(",")}}`;
    this.#cache.set(key, message);
    return message;
  }
}
