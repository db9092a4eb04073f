import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execRuntime } from "../../../src/runtimes/exec/index.js";
import type {
  AgentSendRequest,
  AgentSendResult,
  ProcessEnd,
  ProcessStart,
  ToolCall,
  Usage,
} from "../../../src/runtimes/runtime.js";
import { createScriptedAgent, type ScriptedAgent, type ScriptedTurn } from "../../../src/testing/index.js";

/** A temp working tree with the folders an exec send needs. */
export class ExecSandbox {
  readonly dir = mkdtempSync(join(tmpdir(), "sssf-exec-"));
  readonly cwd = join(this.dir, "repo");
  readonly sessionDir = join(this.dir, "session/exec_sessions");
  readonly rawOutputPath = join(this.dir, "session/raw_output.jsonl");

  constructor() {
    mkdirSync(this.cwd);
  }

  scripted(turns: ScriptedTurn[]): ScriptedAgent {
    return createScriptedAgent({ dir: join(this.dir, "scripts"), name: "builder", turns });
  }

  request(command: string[] | undefined, overrides: Partial<AgentSendRequest> = {}): AgentSendRequest {
    return {
      adwId: "a1b2c3d4",
      agent: "builder",
      sessionId: "builder-1",
      resume: false,
      sessionDir: this.sessionDir,
      rawOutputPath: this.rawOutputPath,
      model: "scripted",
      thinking: "off",
      tools: ["write"],
      systemPrompt: "You are the builder.",
      prompt: "Build the thing",
      cwd: this.cwd,
      command,
      timeouts: { idleMs: 30_000, wallMs: 60_000 },
      ...overrides,
    };
  }

  rawLines(): string[] {
    if (!existsSync(this.rawOutputPath)) return [];
    return readFileSync(this.rawOutputPath, "utf8").split("\n").slice(0, -1);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Observed {
  toolCalls: ToolCall[];
  usages: Usage[];
  logs: string[];
  starts: ProcessStart[];
  ends: ProcessEnd[];
}

/** Sends through the exec runtime, recording every observer callback. */
export async function sendExec(
  request: AgentSendRequest,
  during?: (observed: Observed) => void,
): Promise<{ result: AgentSendResult; observed: Observed }> {
  const observed: Observed = { toolCalls: [], usages: [], logs: [], starts: [], ends: [] };
  const result = await execRuntime.send(request, {
    onToolCall: (call) => {
      observed.toolCalls.push(call);
      during?.(observed);
    },
    onUsage: (usage) => observed.usages.push(usage),
    onLog: (message) => observed.logs.push(message),
    onProcessStart: (start) => {
      observed.starts.push(start);
      during?.(observed);
    },
    onProcessEnd: (end) => observed.ends.push(end),
  });
  return { result, observed };
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until `pid` is gone. Polls because an orphan killed with its group stays a zombie until the
 * system's init reaps it, which some containers do only every second or so.
 */
export async function waitForDeath(pid: number, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!pidAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !pidAlive(pid);
}

export async function waitForFile(path: string, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      if (text !== "") return text;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${path} did not appear within ${timeoutMs} ms`);
}
