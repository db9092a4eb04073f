/**
 * One agent's recorded sends: its `raw_output.jsonl` parsed line by line, handed to the reader that
 * recognises the stream (or the session files that reader names). Says what it could not read.
 */

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { claudeStreamReader } from "./read-claude.js";
import { codexRolloutReader } from "./read-codex-rollout.js";
import { geminiStreamReader } from "./read-gemini.js";
import { opencodeStreamReader } from "./read-opencode.js";
import { piStreamReader } from "./read-pi.js";
import { asRecord, type ReadTurns, type StreamReader } from "./recorded-turn.js";

const READERS: readonly StreamReader[] = [
  piStreamReader,
  claudeStreamReader,
  geminiStreamReader,
  opencodeStreamReader,
  codexRolloutReader,
];

/** The JSON objects of a JSON-lines file, and how many lines were not one (a capped or cut line). */
function jsonLines(file: string): { events: Record<string, unknown>[]; skipped: number } {
  const events: Record<string, unknown>[] = [];
  let skipped = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        events.push(asRecord(parsed));
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { events, skipped };
}

/** What one agent's records gave: its sends, or why there are none (`missing`). */
export interface AgentTurns extends ReadTurns {
  /** Set when nothing could be read: the reason, naming the file. */
  missing?: string;
  /** The stream file does not exist (a model agent whose record was lost, not an exec agent). */
  absent?: true;
}

/**
 * Reads the sends of the agent whose folder is `agentRoot` (`codingAgent` only names it in messages).
 * Never throws: an unreadable record is reported in `missing`.
 */
export function readAgentTurns(agentRoot: string, codingAgent: string): AgentTurns {
  const rawFile = path.join(agentRoot, "raw_output.jsonl");
  if (!existsSync(rawFile)) return { sends: [], notes: [], missing: `${rawFile} is missing`, absent: true };
  let raw: { events: Record<string, unknown>[]; skipped: number };
  try {
    raw = jsonLines(rawFile);
  } catch (error) {
    return { sends: [], notes: [], missing: `${rawFile} cannot be read: ${(error as Error).message}` };
  }
  const first = raw.events[0];
  const reader = first === undefined ? undefined : READERS.find((candidate) => candidate.recognises(first));
  if (reader === undefined) {
    const what =
      raw.events.length === 0
        ? "no JSON events"
        : `no model turns sssf can read (first event: ${String(first?.type)})`;
    return {
      sends: [],
      notes: [],
      missing: `${rawFile} (coding_agent ${codingAgent}) holds ${what}; an exec agent has no model turns to play back`,
    };
  }
  const notes =
    raw.skipped > 0
      ? [`${raw.skipped} line(s) of ${rawFile} were not JSON (a capped or cut line) and were skipped`]
      : [];
  if (reader.sessionFiles === undefined) {
    const read = reader.read(raw.events);
    return { sends: read.sends, notes: [...notes, ...read.notes] };
  }
  const files = reader.sessionFiles(agentRoot);
  if (files.length === 0)
    return {
      sends: [],
      notes,
      missing: `${reader.stream} files are missing under ${agentRoot} (its ${path.basename(rawFile)} lacks the model's tool arguments)`,
    };
  const events = files.flatMap((file) => jsonLines(file).events);
  const read = reader.read(events);
  return { sends: read.sends, notes: [...notes, ...read.notes] };
}
