import type { EnvelopeRow, EventRow, GateResultRow, PhaseRow, ProcessRow } from "../../trace/events.js";
import type { TraceSql } from "../../trace/store.js";
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

async function readPhase(
  db: TraceSql,
  adwId: string,
  phaseId: string,
): Promise<Versioned<PhaseRow> | undefined> {
  return db.get<Versioned<PhaseRow>>(
    `SELECT ${selectList(db, "phases")} FROM phases WHERE adw_id = ? AND id = ?`,
    [adwId, phaseId],
  );
}

/**
 * A page of the phase's tool calls by time: `limit` calls from `offset`, or the latest page when
 * `offset` is null. Throws only what SQLite throws.
 */
export async function readToolCalls(
  db: TraceSql,
  phaseId: string,
  offset: number | null,
  limit = TOOL_CALL_PAGE,
): Promise<ToolCallsPage> {
  const counted = await db.get<{ total: number }>(
    "SELECT count(*) AS total FROM events WHERE phase_id = ? AND type = 'tool_call'",
    [phaseId],
  );
  const total = Number(counted?.total ?? 0);
  const start = offset ?? Math.max(0, total - limit);
  const rows = await db.all<Versioned<EventRow>>(
    `SELECT ${selectList(db, "events")} FROM events WHERE phase_id = ? AND type = 'tool_call'
     ORDER BY started_at, id LIMIT ? OFFSET ?`,
    [phaseId, limit, start],
  );
  return { rows, offset: start, total };
}

function byPhase<T>(db: TraceSql, table: "envelopes" | "gate_results" | "processes", phaseId: string) {
  const order = table === "processes" ? "started_at" : "created_at";
  return db.all<Versioned<T>>(
    `SELECT ${selectList(db, table)} FROM ${table} WHERE phase_id = ? ORDER BY ${order}, id`,
    [phaseId],
  );
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
export async function readPhasePromptFiles(
  db: TraceSql,
  adwId: string,
  phaseId: string,
  sessionsDir: string,
): Promise<Pick<PhaseDetail, "prompts" | "system_prompts"> | undefined> {
  const phase = await readPhase(db, adwId, phaseId);
  if (phase === undefined) return undefined;
  const agents = await db.all<{ agent: string }>(
    "SELECT DISTINCT agent FROM events WHERE phase_id = ? AND type = 'agent_start' AND agent IS NOT NULL",
    [phaseId],
  );
  return readPhasePrompts(sessionsDir, adwId, phase, [...phaseAgents(phase, agents)]);
}

/** Where the phase detail finds the session directories and the lane colors. */
export interface PhaseDetailContext {
  sessionsDir: string;
  scheme: ColorScheme;
}

/**
 * Everything about one phase, plus the prompts it sent from the session directory; undefined when
 * the session or phase does not exist. Counts stop at the hub's cursor, as in `readRun` (no
 * transaction, for the same reason). Rejects only with what the database throws.
 */
export async function readPhaseDetail(
  db: TraceSql,
  adwId: string,
  phaseId: string,
  cursor: HubCursor,
  context: PhaseDetailContext,
): Promise<PhaseDetail | undefined> {
  const read = async () => {
    const session = await readSession(db, adwId);
    const phase = session && (await readPhase(db, adwId, phaseId));
    if (session === undefined || phase === undefined) return undefined;
    const events = await db.all<Versioned<EventRow>>(
      `SELECT * FROM (SELECT ${selectList(db, "events")} FROM events
         WHERE phase_id = ? AND type != 'tool_call' ORDER BY started_at DESC, id DESC LIMIT ?) AS latest
       ORDER BY started_at, id`,
      [phaseId, PHASE_EVENT_LIMIT],
    );
    const envelopes = await byPhase<EnvelopeRow>(db, "envelopes", phaseId);
    return {
      session,
      phase,
      events,
      envelopes,
      toolCalls: await readToolCalls(db, phaseId, null, SNAPSHOT_TOOL_CALLS),
      gateResults: await byPhase<GateResultRow>(db, "gate_results", phaseId),
      processes: await byPhase<ProcessRow>(db, "processes", phaseId),
      counts: (await countPhases(db, adwId, cursor, phaseId))[phaseId] ?? emptyCounts(),
      agents: await readAgents(db, adwId, [phase]),
    };
  };
  const detail = await read();
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
