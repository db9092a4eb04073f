import type { AgentSessionRow, PhaseRow } from "../../trace/events.js";
import type { TraceDb } from "../../trace/sqlite.js";
import { cachedStatement } from "../../trace/statement-cache.js";
import type { AgentInfo, ColorScheme, PhaseCounts, RunView, Versioned } from "./api-types.js";
import { contextWindowFor } from "./model-windows.js";
import { selectList } from "./row-sql.js";
import { readSession } from "./session-queries.js";

/**
 * Where the live hub stands: its tick, and the highest events and envelopes rowids it has sent.
 * Snapshot counts are taken up to these rowids, so the increments of later ticks add up exactly.
 */
export interface HubCursor {
  tick: number;
  events: number;
  envelopes: number;
}

/** Zero counts. */
export function emptyCounts(): PhaseCounts {
  return { tool_calls: 0, errors: 0, gate_fails: 0, attempts: 0, invalid: 0 };
}

interface EventCountRow {
  phase_id: string;
  tool_calls: number;
  errors: number;
  gate_fails: number;
}

interface EnvelopeCountRow {
  phase_id: string;
  attempts: number;
  invalid: number;
}

// Events of the session by its index, or of one phase by the phase index (a phase of a large run
// would otherwise read every event of the session).
const SCOPE = {
  session: "adw_id = @scope",
  phase: "phase_id = @scope",
} as const;

/**
 * Counts of tool calls, errors, failed gates and envelope attempts per phase, over the rows up to the
 * hub's cursor (see {@link HubCursor}): of the whole session, or of one phase when `phaseId` is given.
 * Throws only what SQLite throws.
 */
export function countPhases(
  db: TraceDb,
  adwId: string,
  cursor: HubCursor,
  phaseId: string | null = null,
): Record<string, PhaseCounts> {
  const counts: Record<string, PhaseCounts> = {};
  const of = (id: string) => {
    counts[id] ??= emptyCounts();
    return counts[id];
  };
  const where = phaseId === null ? SCOPE.session : SCOPE.phase;
  const scope = phaseId ?? adwId;
  const events = cachedStatement(
    db,
    `SELECT phase_id, sum(CASE WHEN type = 'tool_call' THEN 1 ELSE 0 END) AS tool_calls, sum(CASE WHEN type = 'error' THEN 1 ELSE 0 END) AS errors,
       sum(CASE WHEN type = 'gate_fail' THEN 1 ELSE 0 END) AS gate_fails
     FROM events WHERE ${where} AND rowid <= @upTo AND phase_id IS NOT NULL GROUP BY phase_id`,
  ).all({ scope, upTo: cursor.events }) as EventCountRow[];
  for (const row of events) {
    const phase = of(row.phase_id);
    phase.tool_calls = row.tool_calls;
    phase.errors = row.errors;
    phase.gate_fails = row.gate_fails;
  }
  const envelopes = cachedStatement(
    db,
    `SELECT phase_id, count(*) AS attempts, sum(CASE WHEN valid = 0 THEN 1 ELSE 0 END) AS invalid
     FROM envelopes WHERE adw_id = @adwId AND (@phaseId IS NULL OR phase_id = @phaseId) AND rowid <= @upTo
     GROUP BY phase_id`,
  ).all({ adwId, phaseId, upTo: cursor.envelopes }) as EnvelopeCountRow[];
  for (const row of envelopes) {
    const phase = of(row.phase_id);
    phase.attempts = row.attempts;
    phase.invalid = row.invalid;
  }
  return counts;
}

/** The session's phases by number, as API rows. */
export function readPhases(db: TraceDb, adwId: string): Versioned<PhaseRow>[] {
  return cachedStatement(
    db,
    `SELECT ${selectList(db, "phases")} FROM phases WHERE adw_id = ? ORDER BY number, started_at, id`,
  ).all(adwId) as Versioned<PhaseRow>[];
}

/** Every agent of the run (agent-session rows and owners of agent phases) with model and window. */
export function readAgents(db: TraceDb, adwId: string, phases: readonly PhaseRow[]): AgentInfo[] {
  const sessions = cachedStatement(
    db,
    "SELECT * FROM agent_sessions WHERE adw_id = ? ORDER BY created_at, agent",
  ).all(adwId) as AgentSessionRow[];
  const agents = new Map<string, AgentInfo>();
  for (const row of sessions) {
    agents.set(row.agent, {
      agent: row.agent,
      model: row.model || null,
      coding_agent: row.coding_agent || null,
      sends: row.sends,
      context_window: contextWindowFor(row.model),
    });
  }
  for (const phase of phases) {
    if (phase.kind !== "agent" || agents.has(phase.owner)) continue;
    agents.set(phase.owner, {
      agent: phase.owner,
      model: null,
      coding_agent: null,
      sends: 0,
      context_window: null,
    });
  }
  return [...agents.values()];
}

/**
 * The run `adwId` as the run view shows it, read in one read transaction; undefined when there is
 * no such session. Throws only what SQLite throws.
 */
export function readRun(
  db: TraceDb,
  adwId: string,
  cursor: HubCursor,
  scheme: ColorScheme,
): RunView | undefined {
  return db.transaction((): RunView | undefined => {
    const session = readSession(db, adwId);
    if (session === undefined) return undefined;
    const phases = readPhases(db, adwId);
    return {
      tick: cursor.tick,
      now: new Date().toISOString(),
      session,
      phases,
      counts: countPhases(db, adwId, cursor),
      agents: readAgents(db, adwId, phases),
      scheme,
    };
  })();
}
