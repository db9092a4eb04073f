import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { sliceWholeGraphemes } from "../../util/shorten-text.js";
import { type PromptFile, type SystemPromptFile, TEXT_LIMIT } from "./api-types.js";

// Session ids and agent names become folder names; anything else never reaches the file system.
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const SEND_FILE = /^-(\d+)-(initial|json_fix|gate_fix)\.user\.md$/;

/** The phase a prompt belongs to: its number and name, as in the saved file names. */
export interface PromptPhase {
  number: number;
  name: string;
}

function readStart(file: string): { text: string; cut: number } | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  try {
    // Four bytes per character at most: enough to fill TEXT_LIMIT characters.
    const buffer = Buffer.alloc(TEXT_LIMIT * 4);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, length).toString("utf8");
    const whole = statSync(file).size <= length;
    return text.length > TEXT_LIMIT || !whole
      ? { text: sliceWholeGraphemes(text, TEXT_LIMIT), cut: 1 }
      : { text, cut: 0 };
  } finally {
    closeSync(fd);
  }
}

function promptsDir(sessionsDir: string, adwId: string, agent: string): string | null {
  if (!SAFE_NAME.test(adwId) || !SAFE_NAME.test(agent)) return null;
  const dir = path.join(sessionsDir, adwId, agent, "prompts");
  return dir.startsWith(path.resolve(sessionsDir) + path.sep) ? dir : null;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Every prompt the phase sent, read from `{sessionsDir}/{adwId}/{agent}/prompts/`: the files named
 * `pNN-<phase>-<attempt>-<reason>.user.md`, ordered by attempt, and each agent's saved `system.md`.
 * Contract: never throws; an unsafe id or name, or a missing folder, yields nothing for that agent.
 */
export function readPhasePrompts(
  sessionsDir: string,
  adwId: string,
  phase: PromptPhase,
  agents: readonly string[],
): { prompts: PromptFile[]; system_prompts: SystemPromptFile[] } {
  const prompts: PromptFile[] = [];
  const systemPrompts: SystemPromptFile[] = [];
  const prefix = `p${String(phase.number).padStart(2, "0")}-${phase.name}`;
  for (const agent of agents) {
    const dir = promptsDir(path.resolve(sessionsDir), adwId, agent);
    if (dir === null) continue;
    const files = listDir(dir);
    for (const file of files) {
      if (!file.startsWith(prefix)) continue;
      const match = SEND_FILE.exec(file.slice(prefix.length));
      if (!match) continue;
      const content = readStart(path.join(dir, file));
      if (content === null) continue;
      prompts.push({ agent, file, attempt: Number(match[1]), reason: match[2] ?? "", ...content });
    }
    if (files.includes("system.md")) {
      const content = readStart(path.join(dir, "system.md"));
      if (content !== null) systemPrompts.push({ agent, ...content });
    }
  }
  prompts.sort((a, b) => a.attempt - b.attempt || a.agent.localeCompare(b.agent));
  return { prompts, system_prompts: systemPrompts };
}
