import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SssfConfig } from "../../src/config/config-types.js";
import { loadConfig } from "../../src/library.js";
import type { AgentSendObserver, AgentSendRequest, ToolCall, Usage } from "../../src/runtimes/runtime.js";
import {
  createFakeModelServer,
  type FakeModelServer,
  type FakeScript,
  fakeModelEnv,
} from "../../src/testing/index.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The real CLIs, installed as exact-version dev dependencies. */
export const binDir = path.join(repoRoot, "node_modules/.bin");

/**
 * One isolated world for a real agent CLI: a scratch HOME (so the user's own config and sessions are
 * never read or written), a work tree, and a fake model server that is also the egress trap.
 */
export interface CliWorld {
  root: string;
  home: string;
  work: string;
  server: FakeModelServer;
  /** Environment for the CLI: scratch HOME and XDG dirs, fake endpoints and keys, proxies to the trap. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export async function createCliWorld(script: FakeScript = { steps: [] }): Promise<CliWorld> {
  const root = mkdtempSync(path.join(tmpdir(), "sssf-cli-"));
  const home = path.join(root, "home");
  const work = path.join(root, "work");
  for (const dir of [
    home,
    work,
    path.join(home, ".config"),
    path.join(home, ".local/share"),
    path.join(home, ".cache"),
    path.join(home, ".local/state"),
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(path.join(work, "README.md"), "# work tree\n");
  const server = await createFakeModelServer({ script, logFile: path.join(root, "fake-model.jsonl") });
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local/state"),
    ...fakeModelEnv(server.url),
  };
  return {
    root,
    home,
    work,
    server,
    env,
    async cleanup() {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A send request with test defaults; override what the test is about. */
export function sendRequest(world: CliWorld, overrides: Partial<AgentSendRequest> = {}): AgentSendRequest {
  const agentDir = path.join(world.root, "session/agent");
  return {
    adwId: "a1b2c3d4",
    agent: "agent",
    sessionId: "sssf-a1b2c3d4-agent-0001",
    resume: false,
    sessionDir: path.join(agentDir, "cli_sessions"),
    rawOutputPath: path.join(agentDir, "raw_output.jsonl"),
    model: "",
    thinking: "off",
    tools: ["read", "bash", "edit", "write"],
    systemPrompt: "You are a test agent. Reply with JSON.",
    prompt: "TURN-1 hello",
    cwd: world.work,
    env: world.env,
    timeouts: { idleMs: 60_000, wallMs: 120_000 },
    ...overrides,
  };
}

/** An observer that records what a runtime reports. */
export function recordingObserver(): AgentSendObserver & {
  toolCalls: ToolCall[];
  usages: Usage[];
  pids: number[];
} {
  const toolCalls: ToolCall[] = [];
  const usages: Usage[] = [];
  const pids: number[] = [];
  return {
    toolCalls,
    usages,
    pids,
    onToolCall: (call) => toolCalls.push(call),
    onUsage: (usage) => usages.push(usage),
    onProcessStart: (started) => pids.push(started.pid),
  };
}

/**
 * A repo whose roster has one agent on `codingAgent`, run through the real engine: for the tests that
 * go end to end (a malformed reply corrected in the same session, usage summed across sends).
 */
export function engineRepo(
  world: CliWorld,
  agent: {
    codingAgent: string;
    model?: string;
    command?: string[];
    timeouts?: { idle_seconds?: number; wall_seconds?: number };
    /** Set over the world's environment for the agent. */
    env?: Record<string, string>;
  },
): { config: SssfConfig; query<T>(sql: string): T[] } {
  const prompts = path.join(world.work, "adws/adw_data/prompt_engineering/agent");
  mkdirSync(prompts, { recursive: true });
  writeFileSync(path.join(prompts, "system.md"), "You are a test agent. End with the JSON report.\n");
  writeFileSync(path.join(prompts, "user.md"), "{{prompt}}\n");
  mkdirSync(path.join(world.work, "adws/adw_sssf_config"), { recursive: true });
  writeFileSync(
    path.join(world.work, "adws/adw_sssf_config/sssf.config.yaml"),
    JSON.stringify({
      agents: [
        {
          name: "agent",
          coding_agent: agent.codingAgent,
          model: agent.model ?? "",
          ...(agent.command ? { command: agent.command } : {}),
          ...(agent.timeouts ? { timeouts: agent.timeouts } : {}),
          env: { ...world.env, ...agent.env },
        },
      ],
    }),
  );
  const config = loadConfig({ cwd: world.work });
  return {
    config,
    query<T>(sql: string) {
      const db = openRawSqlite(config.dbPath, { readonly: true });
      try {
        return db.prepare(sql).all() as T[];
      } finally {
        db.close();
      }
    },
  };
}
