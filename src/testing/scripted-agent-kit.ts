/**
 * Test kit for the scripted exec agent: write a script, get the argv to put in an agent's `command`,
 * and read back every request the agent received.
 */

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { packageRoot, runsFromDist } from "../util/package-root.js";
import {
  type ScriptedSend,
  type ScriptedTurn,
  scriptLockPath,
  scriptSendsPath,
  scriptStatePath,
} from "./scripted-turn.js";

/** A scripted agent ready to be put in a roster. */
export interface ScriptedAgent {
  /** argv for an agent with `coding_agent: exec`. */
  command: string[];
  scriptPath: string;
  /**
   * The agent's roster entry: `coding_agent: exec`, its `command`, and its script folder in
   * `sandbox.allow_write` (the agent records what it was sent there, outside the repo and so outside
   * sssf's box).
   */
  rosterEntry: { coding_agent: "exec"; command: string[]; sandbox: { allow_write: string[] } };
  /** Every request received so far, across sessions, in arrival order. */
  sends(): ScriptedSend[];
}

/** Where to write the script and what it says. */
export interface CreateScriptedAgentOptions {
  /** Folder for the script and its state files (created if missing). */
  dir: string;
  /** Base name of the script file (default `scripted-agent`). */
  name?: string;
  turns: ScriptedTurn[];
}

/** The `tsx` loader as a file URL, so `--import` works whatever the agent's cwd is. */
function tsxLoader(): string {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  } catch {
    return "tsx";
  }
}

/**
 * argv running the scripted agent on `scriptPath`: the compiled program when this module runs from
 * `dist`, else the TypeScript source through tsx. Never throws.
 */
export function scriptedAgentCommand(scriptPath: string): string[] {
  if (runsFromDist()) {
    return [process.execPath, join(packageRoot(), "dist/testing/scripted-agent.js"), scriptPath];
  }
  const source = fileURLToPath(new URL("./scripted-agent.ts", import.meta.url));
  return [process.execPath, "--import", tsxLoader(), source, scriptPath];
}

/**
 * Writes `<dir>/<name>.script.json` with `turns`, clearing any state left by an earlier script of
 * that name, and returns the agent's argv plus a reader of its sends. Throws only on file-system errors.
 *
 * @example
 * const agent = createScriptedAgent({ dir, turns: [{ reply: "done", tool_calls: [
 *   { tool: "write", write_file: { path: "notes.md", content: "hi" } }] }] });
 * // agent.rosterEntry goes into the agent's roster entry; agent.sends() lists what it was asked.
 */
export function createScriptedAgent(options: CreateScriptedAgentOptions): ScriptedAgent {
  mkdirSync(options.dir, { recursive: true });
  const scriptPath = join(options.dir, `${options.name ?? "scripted-agent"}.script.json`);
  for (const stale of [
    scriptStatePath(scriptPath),
    scriptSendsPath(scriptPath),
    scriptLockPath(scriptPath),
  ]) {
    rmSync(stale, { recursive: true, force: true });
  }
  writeFileSync(scriptPath, `${JSON.stringify({ turns: options.turns }, null, 2)}\n`);
  const command = scriptedAgentCommand(scriptPath);
  return {
    command,
    scriptPath,
    rosterEntry: { coding_agent: "exec", command, sandbox: { allow_write: [options.dir] } },
    sends() {
      const path = scriptSendsPath(scriptPath);
      if (!existsSync(path)) return [];
      return readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as ScriptedSend);
    },
  };
}
