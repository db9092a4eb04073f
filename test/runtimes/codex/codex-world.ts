import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentSendObserver, AgentSendRequest } from "../../../src/runtimes/runtime.js";
import type { FakeScript, LoggedRequest } from "../../../src/testing/index.js";
import { binDir, type CliWorld, createCliWorld, recordingObserver, sendRequest } from "../cli-harness.js";
import type { ContractWire } from "../runtime-contract-world.js";

/** The installed codex CLI (exact-version dev dependency). */
export const codexBin = path.join(binDir, "codex");

/** The model the tests run: in codex's bundled catalog, so codex offers apply_patch to it. */
export const CODEX_TEST_MODEL = "gpt-5.5";

/** The quiet switches the brief asks for; `bare` leaves them out to prove the runtime sets its own. */
const QUIET_CONFIG = `
check_for_update_on_startup = false
[analytics]
enabled = false
[feedback]
enabled = false
[features]
plugins = false
remote_plugin = false
apps = false
`;

/**
 * Writes `<dir>/config.toml` pointing codex at `baseUrl` (a custom provider "fake" on the Responses
 * API, no retries) and returns the env that selects it: CODEX_HOME and the key variable.
 */
export function writeCodexHome(
  dir: string,
  baseUrl: string,
  options: { bare?: boolean } = {},
): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  const config = `model_provider = "fake"
${options.bare ? "" : QUIET_CONFIG}
[model_providers.fake]
name = "fake"
base_url = "${baseUrl}/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`;
  writeFileSync(path.join(dir, "config.toml"), config);
  return { CODEX_HOME: dir, FAKE_API_KEY: "sk-fake" };
}

/** A CLI world whose scratch HOME has a codex config aimed at the world's fake model server. */
export async function createCodexWorld(
  script?: FakeScript,
  options: { bare?: boolean } = {},
): Promise<CliWorld> {
  const world = await createCliWorld(script);
  Object.assign(world.env, writeCodexHome(path.join(world.home, ".codex"), world.server.url, options));
  return world;
}

/** A codex send request: the installed binary, the test model, test defaults. */
export function codexRequest(world: CliWorld, overrides: Partial<AgentSendRequest> = {}): AgentSendRequest {
  return sendRequest(world, {
    command: [codexBin],
    model: CODEX_TEST_MODEL,
    sessionDir: path.join(world.root, "session/agent/codex_sessions"),
    ...overrides,
  });
}

/** A codex world that builds its own requests (`codexRequest`), as the contract suite wants it. */
export interface CodexWorld extends CliWorld {
  request(overrides?: Partial<AgentSendRequest>): AgentSendRequest;
}

/**
 * The contract suite's sandbox: `/tmp` and `$TMPDIR` are no writable roots of `workspace-write`, as
 * they are by default. Every scene lives under the system temp folder, so only then does the sandbox's
 * boundary show: the cwd and sssf's `--add-dir` folder stay writable, the rest of the scene does not.
 */
const CONTRACT_SANDBOX = `
[sandbox_workspace_write]
exclude_slash_tmp = true
exclude_tmpdir_env_var = true
`;

/** `createCodexWorld` with `request()` bound to it and the contract suite's sandbox (above). */
export async function openCodexWorld(script?: FakeScript): Promise<CodexWorld> {
  const world = await createCodexWorld(script);
  appendFileSync(path.join(world.home, ".codex/config.toml"), CONTRACT_SANDBOX);
  return { ...world, request: (overrides = {}) => codexRequest(world, overrides) };
}

/** recordingObserver plus the argv of every process and every log line. */
export function codexObserver(): ReturnType<typeof recordingObserver> & {
  commands: string[][];
  logs: string[];
} {
  const base = recordingObserver();
  const commands: string[][] = [];
  const logs: string[] = [];
  const observer: AgentSendObserver = {
    ...base,
    onProcessStart: (started) => {
      base.pids.push(started.pid);
      commands.push(started.command);
    },
    onLog: (message) => logs.push(message),
  };
  return Object.assign(observer, {
    toolCalls: base.toolCalls,
    usages: base.usages,
    pids: base.pids,
    commands,
    logs,
  });
}

interface ResponsesInput {
  role?: string;
  type?: string;
  content?: { text?: string }[];
}

/** The text of every message of a logged Responses request, in order, with its role. */
export function inputMessages(request: LoggedRequest | undefined): { role: string; text: string }[] {
  const body = request?.body as { input?: ResponsesInput[] } | undefined;
  return (body?.input ?? [])
    .filter((item) => item.role !== undefined)
    .map((item) => ({
      role: item.role ?? "",
      text: (item.content ?? []).map((part) => part.text ?? "").join(""),
    }));
}

/** Names of the tools a logged request offered. */
export function offeredTools(request: LoggedRequest | undefined): string[] {
  const body = request?.body as { tools?: { name?: string; type?: string }[] } | undefined;
  return (body?.tools ?? []).map((tool) => tool.name ?? tool.type ?? "?");
}

/** The model requests (POST …/responses) the fake received. */
export const modelRequests = (world: CliWorld): LoggedRequest[] =>
  world.server
    .requests()
    .filter((request) => request.method === "POST" && request.api === "openai-responses");

/** How the contract suite reads codex's Responses requests (instructions are the developer message). */
export const codexWire: ContractWire<CodexWorld> = {
  requests: modelRequests,
  userTexts: (request) =>
    inputMessages(request)
      .filter((message) => message.role === "user")
      .map((message) => message.text),
  systemText: (request) =>
    inputMessages(request)
      .filter((message) => message.role === "developer")
      .map((message) => message.text)
      .join("\n"),
  offeredTools,
};
