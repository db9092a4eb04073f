import type { AgentSessionRow, PhaseRow } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
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
export async function countPhases(
  db: TraceSql,
  adwId: string,
  cursor: HubCursor,
  phaseId: string | null = null,
): Promise<Record<string, PhaseCounts>> {
  const counts: Record<string, PhaseCounts> = {};
  const of = (id: string) => {
    counts[id] ??= emptyCounts();
    return counts[id];
  };
  const where = phaseId === null ? SCOPE.session : SCOPE.phase;
  const scope = phaseId ?? adwId;
  const events = await db.all<EventCountRow>(
    `SELECT phase_id, sum(CASE WHEN type = 'tool_call' THEN 1 ELSE 0 END) AS tool_calls, sum(CASE WHEN type = 'error' THEN 1 ELSE 0 END) AS errors,
       sum(CASE WHEN type = 'gate_fail' THEN 1 ELSE 0 END) AS gate_fails
     FROM events WHERE ${where} AND rowid <= @upTo AND phase_id IS NOT NULL GROUP BY phase_id`,
    { scope, upTo: cursor.events },
  );
  for (const row of events) {
    const phase = of(row.phase_id);
    phase.tool_calls = Number(row.tool_calls);
    phase.errors = Number(row.errors);
    phase.gate_fails = Number(row.gate_fails);
  }
  const envelopes = await db.all<EnvelopeCountRow>(
    `SELECT phase_id, count(*) AS attempts, sum(CASE WHEN valid = 0 THEN 1 ELSE 0 END) AS invalid
     FROM envelopes WHERE adw_id = @adwId AND (@phaseId IS NULL OR phase_id = @phaseId) AND rowid <= @upTo
     GROUP BY phase_id`,
    { adwId, phaseId, upTo: cursor.envelopes },
  );
  for (const row of envelopes) {
    const phase = of(row.phase_id);
    phase.attempts = Number(row.attempts);
    phase.invalid = Number(row.invalid);
  }
  return counts;
}

/** The session's phases by number, as API rows. */
export async function readPhases(db: TraceSql, adwId: string): Promise<Versioned<PhaseRow>[]> {
  return db.all<Versioned<PhaseRow>>(
    `SELECT ${selectList(db, "phases")} FROM phases WHERE adw_id = ? ORDER BY number, started_at, id`,
    [adwId],
  );
}

/** Every agent of the run (agent-session rows and owners of agent phases) with model and window. */
export async function readAgents(
  db: TraceSql,
  adwId: string,
  phases: readonly PhaseRow[],
): Promise<AgentInfo[]> {
  const sessions = await db.all<AgentSessionRow>(
    "SELECT * FROM agent_sessions WHERE adw_id = ? ORDER BY created_at, agent",
    [adwId],
  );
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
 * The run `adwId` as the run view shows it; undefined when there is no such session. Its counts stop
 * at the hub's cursor, so they agree with the tick; a row read here may already be newer, which the
 * client reconciles by `_v`. No transaction: on SQLite that would take the writer's lock. Rejects
 * only with what the database throws.
 */
export async function readRun(
  db: TraceSql,
  adwId: string,
  cursor: HubCursor,
  scheme: ColorScheme,
): Promise<RunView | undefined> {
  const session = await readSession(db, adwId);
  if (session === undefined) return undefined;
  const phases = await readPhases(db, adwId);
  return {
    tick: cursor.tick,
    now: new Date().toISOString(),
    session,
    phases,
    counts: await countPhases(db, adwId, cursor),
    agents: await readAgents(db, adwId, phases),
    scheme,
  };
}
