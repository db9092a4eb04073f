import type { EnvelopeRow, EventRow, GateResultRow, PhaseRow, ProcessRow } from "../../trace/events.js";
import type { TraceDb } from "../../trace/sqlite.js";
import { cachedStatement } from "../../trace/statement-cache.js";
import {
  type ColorScheme,
  PHASE_EVENT_LIMIT,
  type PhaseDetail,
  type ToolCallsPage,
  type Versioned,
} from "./api-types.js";
import { readPhasePrompts } from "./prompt-files.js";
import { selectList } from "./row-sql.js";
import { countPhases, emptyCounts, type HubCursor, readAgents } from "./run-queries.js";
import { readSession } from "./session-queries.js";

/** Tool calls per page of {@link readToolCalls}. */
export const TOOL_CALL_PAGE = 500;
/** Tool calls a phase snapshot carries: the latest ones (earlier pages load on demand). */
export const SNAPSHOT_TOOL_CALLS = 100;

function readPhase(db: TraceDb, adwId: string, phaseId: string): Versioned<PhaseRow> | undefined {
  return cachedStatement(
    db,
    `SELECT ${selectList(db, "phases")} FROM phases WHERE adw_id = ? AND id = ?`,
  ).get(adwId, phaseId) as Versioned<PhaseRow> | undefined;
}

/**
 * A page of the phase's tool calls by time: `limit` calls from `offset`, or the latest page when
 * `offset` is null. Throws only what SQLite throws.
 */
export function readToolCalls(
  db: TraceDb,
  phaseId: string,
  offset: number | null,
  limit = TOOL_CALL_PAGE,
): ToolCallsPage {
  const { total } = cachedStatement(
    db,
    "SELECT count(*) AS total FROM events WHERE phase_id = ? AND type = 'tool_call'",
  ).get(phaseId) as { total: number };
  const start = offset ?? Math.max(0, total - limit);
  const rows = cachedStatement(
    db,
    `SELECT ${selectList(db, "events")} FROM events WHERE phase_id = ? AND type = 'tool_call'
     ORDER BY started_at, id LIMIT ? OFFSET ?`,
  ).all(phaseId, limit, start) as Versioned<EventRow>[];
  return { rows, offset: start, total };
}

function byPhase<T>(db: TraceDb, table: "envelopes" | "gate_results" | "processes", phaseId: string) {
  const order = table === "processes" ? "started_at" : "created_at";
  return cachedStatement(
    db,
    `SELECT ${selectList(db, table)} FROM ${table} WHERE phase_id = ? ORDER BY ${order}, id`,
  ).all(phaseId) as Versioned<T>[];
}

function phaseAgents(phase: PhaseRow, rows: readonly { agent: string | null }[]): Set<string> {
  const agents = new Set<string>(phase.kind === "agent" ? [phase.owner] : []);
  for (const row of rows) if (row.agent) agents.add(row.agent);
  return agents;
}

/**
 * The prompts the phase sent so far (re-read by the client after each new send), or undefined when
 * the session or phase does not exist. Throws only what SQLite throws.
 */
export function readPhasePromptFiles(
  db: TraceDb,
  adwId: string,
  phaseId: string,
  sessionsDir: string,
): Pick<PhaseDetail, "prompts" | "system_prompts"> | undefined {
  const phase = readPhase(db, adwId, phaseId);
  if (phase === undefined) return undefined;
  const agents = cachedStatement(
    db,
    "SELECT DISTINCT agent FROM events WHERE phase_id = ? AND type = 'agent_start' AND agent IS NOT NULL",
  ).all(phaseId) as { agent: string }[];
  return readPhasePrompts(sessionsDir, adwId, phase, [...phaseAgents(phase, agents)]);
}

/** Where the phase detail finds the session directories and the lane colors. */
export interface PhaseDetailContext {
  sessionsDir: string;
  scheme: ColorScheme;
}

/**
 * Everything about one phase, read in one read transaction, plus the prompts it sent from the session
 * directory; undefined when the session or phase does not exist. Throws only what SQLite throws.
 */
export function readPhaseDetail(
  db: TraceDb,
  adwId: string,
  phaseId: string,
  cursor: HubCursor,
  context: PhaseDetailContext,
): PhaseDetail | undefined {
  const detail = db.transaction(() => {
    const session = readSession(db, adwId);
    const phase = session && readPhase(db, adwId, phaseId);
    if (session === undefined || phase === undefined) return undefined;
    const events = cachedStatement(
      db,
      `SELECT * FROM (SELECT ${selectList(db, "events")} FROM events
         WHERE phase_id = ? AND type != 'tool_call' ORDER BY started_at DESC, id DESC LIMIT ?) AS latest
       ORDER BY started_at, id`,
    ).all(phaseId, PHASE_EVENT_LIMIT) as Versioned<EventRow>[];
    const envelopes = byPhase<EnvelopeRow>(db, "envelopes", phaseId);
    return {
      session,
      phase,
      events,
      envelopes,
      toolCalls: readToolCalls(db, phaseId, null, SNAPSHOT_TOOL_CALLS),
      gateResults: byPhase<GateResultRow>(db, "gate_results", phaseId),
      processes: byPhase<ProcessRow>(db, "processes", phaseId),
      counts: countPhases(db, adwId, cursor, phaseId)[phaseId] ?? emptyCounts(),
      agents: readAgents(db, adwId, [phase]),
    };
  })();
  if (detail === undefined) return undefined;
  const { phase, envelopes, events } = detail;
  const agentNames = phaseAgents(phase, [...envelopes, ...events]);
  const files = readPhasePrompts(context.sessionsDir, adwId, phase, [...agentNames]);
  return {
    tick: cursor.tick,
    now: new Date().toISOString(),
    session: detail.session,
    phase,
    counts: detail.counts,
    events,
    tool_calls: detail.toolCalls,
    envelopes,
    gate_results: detail.gateResults,
    processes: detail.processes,
    prompts: files.prompts,
    system_prompts: files.system_prompts,
    agents: detail.agents.filter((a) => agentNames.has(a.agent)),
    scheme: context.scheme,
  };
}
