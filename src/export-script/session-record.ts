/**
 * What export-script needs from a session's folder besides the agents' streams: the agents and their
 * coding agents (`agent_map.json`), the run's workflow and request, and every send in the order the
 * run made them (the `agent_start` spans of `events.jsonl`, with their phase).
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { asRecord } from "./recorded-turn.js";

/** One send the trace recorded. */
export interface TracedSend {
  agent: string;
  /** `p03 build`, or the phase id when the phase row is not on file. */
  phase: string;
  startedAt: string;
  endedAt: string | null;
  /** Its `tool_call` events in order, by the tool names sssf traced (redacted). */
  toolCalls: { name: string; args: Record<string, unknown> }[];
  /** The reply it parsed (`envelopes.raw_text`, redacted), or null when none is on file. */
  reply: string | null;
}

export interface SessionRecord {
  /** agent → coding agent (`?` when neither agent_map.json nor the folder says). */
  agents: Map<string, string>;
  workflow: string | null;
  request: string | null;
  /** Every send in order, or null without a readable events.jsonl. */
  sends: TracedSend[] | null;
  notes: string[];
}

function parseJson(text: unknown): unknown {
  try {
    return typeof text === "string" ? JSON.parse(text) : text;
  } catch {
    return null;
  }
}

function readRows(file: string): { table: string; row: Record<string, unknown> }[] {
  const rows: { table: string; row: Record<string, unknown> }[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    try {
      const parsed = asRecord(JSON.parse(line));
      if (typeof parsed.table === "string") rows.push({ table: parsed.table, row: asRecord(parsed.row) });
    } catch {}
  }
  return rows;
}

/** Reads `root` (a session folder). Never throws for a missing or damaged file: it is said in `notes`. */
export function readSessionRecord(root: string): SessionRecord {
  const notes: string[] = [];
  const agents = new Map<string, string>();
  try {
    for (const [agent, entry] of Object.entries(
      asRecord(JSON.parse(readFileSync(path.join(root, "agent_map.json"), "utf8"))),
    ))
      agents.set(agent, String(asRecord(entry).coding_agent ?? "?"));
  } catch {
    notes.push(
      `${path.join(root, "agent_map.json")} is missing or unreadable: agents are taken from the folders`,
    );
  }
  // An agent folder without an agent_map.json entry still counts (its runtime named by its *_sessions folder).
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || agents.has(entry.name)) continue;
    const inner = readdirSync(path.join(root, entry.name));
    if (!inner.includes("raw_output.jsonl") && !inner.includes("prompts")) continue;
    const runtime = inner.find((name) => name.endsWith("_sessions"))?.replace(/_sessions$/, "") ?? "?";
    agents.set(entry.name, runtime);
  }
  const eventsFile = path.join(root, "events.jsonl");
  if (!existsSync(eventsFile)) {
    notes.push(`${eventsFile} is missing: sends are played agent by agent, not in the run's order`);
    return { agents, workflow: null, request: null, sends: null, notes };
  }
  const rows = readRows(eventsFile);
  let workflow: string | null = null;
  let request: string | null = null;
  const phases = new Map<string, string>();
  const spans = new Map<string, TracedSend & { phaseId: string; attempt: unknown }>();
  const calls = new Map<string, TracedSend["toolCalls"]>();
  const replies = new Map<string, string>();
  const replyKey = (phase: unknown, agent: unknown, attempt: unknown) =>
    `${String(phase)}|${String(agent)}|${String(attempt)}`;
  for (const { table, row } of rows) {
    if (table === "sessions") {
      workflow = typeof row.workflow === "string" && row.workflow !== "" ? row.workflow : workflow;
      request = typeof row.request === "string" && row.request !== "" ? row.request : request;
    } else if (table === "phases" && typeof row.id === "string")
      phases.set(row.id, `p${String(row.number).padStart(2, "0")} ${String(row.name)}`);
    else if (table === "events" && row.type === "agent_start" && typeof row.id === "string") {
      // A span is written as it starts and again as it ends: the first write keeps its place.
      const known = spans.get(row.id);
      spans.set(row.id, {
        agent: String(row.agent ?? ""),
        phase: String(row.phase_id ?? ""),
        phaseId: String(row.phase_id ?? ""),
        attempt: asRecord(parseJson(row.payload)).attempt,
        startedAt: String(row.started_at ?? known?.startedAt ?? ""),
        endedAt: typeof row.ended_at === "string" ? row.ended_at : (known?.endedAt ?? null),
        toolCalls: [],
        reply: null,
      });
    } else if (table === "events" && row.type === "tool_call" && typeof row.parent_id === "string") {
      const payload = asRecord(parseJson(row.payload));
      if (typeof payload.tool !== "string") continue;
      const list = calls.get(row.parent_id) ?? [];
      // A tool call is written once it ended; a second write of the same id replaces nothing here.
      if (!list.some((call) => (call as { id?: unknown }).id === row.id))
        list.push(Object.assign({ name: payload.tool, args: asRecord(payload.args) }, { id: row.id }));
      calls.set(row.parent_id, list);
    } else if (table === "envelopes" && typeof row.raw_text === "string")
      replies.set(replyKey(row.phase_id, row.agent, row.attempt), row.raw_text);
  }
  const sends = [...spans.entries()]
    .map(([id, { phaseId, attempt, ...send }]) => ({
      ...send,
      phase: phases.get(phaseId) ?? phaseId,
      toolCalls: (calls.get(id) ?? []).map(({ name, args }) => ({ name, args })),
      reply: replies.get(replyKey(phaseId, send.agent, attempt)) ?? null,
    }))
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return { agents, workflow, request, sends, notes };
}

/** Pairs of sends of different agents that overlapped in time (parallel phases), as `a ∥ b` names. */
export function overlappingSends(sends: readonly TracedSend[]): string[] {
  const found = new Set<string>();
  sends.forEach((a, i) => {
    for (const b of sends.slice(i + 1)) {
      if (a.agent === b.agent || a.endedAt === null) continue;
      if (b.startedAt < a.endedAt) found.add(`${a.phase} (${a.agent}) ∥ ${b.phase} (${b.agent})`);
    }
  });
  return [...found];
}
