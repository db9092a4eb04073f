import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";

/** One entry of `agent_map.json` (seed fields, plus the runtime's own id when it has one). */
export interface AgentMapEntry {
  session_id: string;
  model: string;
  coding_agent: string;
  native_session_id?: string;
}
export type AgentMap = Record<string, AgentMapEntry>;

export function readAgentMap(file: string): AgentMap {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as AgentMap;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
}

/**
 * Updates one agent's entry: re-reads the file, changes only that key, and replaces the file
 * atomically (write to a temp file, then rename), so a reader never sees a half-written map.
 */
export function updateAgentMap(file: string, agent: string, entry: AgentMapEntry): AgentMap {
  const map = readAgentMap(file);
  map[agent] = entry;
  const temp = `${file}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
  writeFileSync(temp, `${JSON.stringify(map, null, 2)}\n`);
  renameSync(temp, file);
  return map;
}

export function newAgentSessionId(adwId: string, agent: string): string {
  return `sssf-${adwId}-${agent}-${randomBytes(2).toString("hex")}`;
}
