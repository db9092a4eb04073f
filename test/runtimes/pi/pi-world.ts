import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentSendRequest } from "../../../src/runtimes/runtime.js";
import type { FakeScript, LoggedRequest } from "../../../src/testing/index.js";
import { binDir, type CliWorld, createCliWorld, sendRequest } from "../cli-harness.js";
import type { ContractWire } from "../runtime-contract-world.js";

/** The real pi CLI installed as a dev dependency. */
export const piBinary = path.join(binDir, "pi");

/** Per-million prices of the fake models, so pi reports a non-zero cost. */
export const FAKE_PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** A CLI world with pi's agent dir pointed at the fake server, and requests that run pi. */
export interface PiWorld extends CliWorld {
  agentDir: string;
  request(overrides?: Partial<AgentSendRequest>): AgentSendRequest;
  /** The chat-completions requests the fake answered, oldest first. */
  chats(): LoggedRequest[];
}

/**
 * `createCliWorld` plus `$PI_CODING_AGENT_DIR/models.json` (provider `fake`: `fake-model` and the
 * reasoning `fake-reasoner`, priced) and `settings.json` (retries off, `fake/fake-model` as default).
 */
export async function createPiWorld(script?: FakeScript): Promise<PiWorld> {
  const world = await createCliWorld(script);
  const agentDir = path.join(world.root, "pi-agent");
  mkdirSync(agentDir, { recursive: true });
  const limits = { contextWindow: 128000, maxTokens: 4096, cost: FAKE_PRICES };
  const models = {
    providers: {
      fake: {
        baseUrl: `${world.server.url}/v1`,
        api: "openai-completions",
        apiKey: "sk-fake",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [
          { id: "fake-model", ...limits },
          { id: "fake-reasoner", reasoning: true, compat: { supportsReasoningEffort: true }, ...limits },
        ],
      },
    },
  };
  writeFileSync(path.join(agentDir, "models.json"), JSON.stringify(models, null, 2));
  const settings = {
    defaultProvider: "fake",
    defaultModel: "fake-model",
    quietStartup: true,
    retry: { enabled: false, provider: { maxRetries: 0 } },
  };
  writeFileSync(path.join(agentDir, "settings.json"), JSON.stringify(settings, null, 2));
  // Mutated in place so engineRepo(world, …) hands the same agent dir to the engine's agent.
  world.env.PI_CODING_AGENT_DIR = agentDir;
  return {
    ...world,
    agentDir,
    request: (overrides = {}) =>
      sendRequest(world, { command: [piBinary], model: "fake/fake-model", ...overrides }),
    chats: () => world.server.requests().filter((entry) => entry.api === "openai-chat"),
  };
}

/** The chat messages of a logged request. */
export function chatMessages(entry: LoggedRequest | undefined): Array<{ role: string; content: unknown }> {
  return ((entry?.body as { messages?: unknown[] } | null)?.messages ?? []) as Array<{
    role: string;
    content: unknown;
  }>;
}

/** All text of a chat message (string content or text parts). */
export function messageText(message: { content: unknown } | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("");
}

/** Names of the tools a logged chat request offered (none when it has no `tools`). */
export function offeredTools(entry: LoggedRequest | undefined): string[] {
  const body = entry?.body as { tools?: Array<{ function?: { name?: string } }> } | null | undefined;
  return (body?.tools ?? []).map((tool) => tool.function?.name ?? "?");
}

/** How the contract suite reads pi's chat-completions requests. */
export const piWire: ContractWire<PiWorld> = {
  requests: (world) => world.chats(),
  userTexts: (entry) =>
    chatMessages(entry)
      .filter((message) => message.role === "user")
      .map(messageText),
  systemText: (entry) =>
    chatMessages(entry)
      .filter((message) => message.role === "system")
      .map(messageText)
      .join("\n"),
  offeredTools,
};
