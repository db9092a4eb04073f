import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentSendRequest } from "../../../src/runtimes/runtime.js";
import type { FakeScript, LoggedRequest } from "../../../src/testing/index.js";
import { binDir, type CliWorld, createCliWorld, sendRequest } from "../cli-harness.js";
import type { ContractWire } from "../runtime-contract-world.js";

/** The real opencode CLI installed as a dev dependency. */
export const opencodeBinary = path.join(binDir, "opencode");

/** Per-million prices of the fake models (opencode's cost field names), so cost is non-zero. */
export const FAKE_PRICES = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };

/** A CLI world whose opencode config points at the fake server, and requests that run opencode. */
export interface OpencodeWorld extends CliWorld {
  configDir: string;
  request(overrides?: Partial<AgentSendRequest>): AgentSendRequest;
  /** The chat-completions requests the fake received, oldest first. */
  chats(): LoggedRequest[];
}

/**
 * opencode installs `@opencode-ai/plugin` into every config folder that has no node_modules (a GET of
 * the npm registry on each run until it succeeds). A lock file that already lists it stops that.
 */
export function markPluginInstalled(configDir: string): void {
  mkdirSync(path.join(configDir, "node_modules"), { recursive: true });
  writeFileSync(path.join(configDir, "package.json"), "{}\n");
  const lock = {
    lockfileVersion: 3,
    packages: { "": { dependencies: { "@opencode-ai/plugin": "1.18.33" } } },
  };
  writeFileSync(path.join(configDir, "package-lock.json"), JSON.stringify(lock));
}

/**
 * `createCliWorld` plus `$XDG_CONFIG_HOME/opencode/opencode.json`: provider `fake` (OpenAI chat at the
 * fake server) with the priced `fake-model` (the default) and the reasoning `fake-reasoner`.
 */
export async function createOpencodeWorld(script?: FakeScript): Promise<OpencodeWorld> {
  const world = await createCliWorld(script);
  const configDir = path.join(world.env.XDG_CONFIG_HOME ?? path.join(world.home, ".config"), "opencode");
  mkdirSync(configDir, { recursive: true });
  const limit = { context: 128000, output: 4096 };
  const config = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model: "fake/fake-model",
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: `${world.server.url}/v1`, apiKey: "sk-fake" },
        models: {
          "fake-model": { name: "Fake model", cost: FAKE_PRICES, limit },
          "fake-reasoner": { name: "Fake reasoner", reasoning: true, cost: FAKE_PRICES, limit },
        },
      },
    },
  };
  writeFileSync(path.join(configDir, "opencode.json"), JSON.stringify(config, null, 2));
  markPluginInstalled(configDir);
  return {
    ...world,
    configDir,
    request: (overrides = {}) =>
      sendRequest(world, { command: [opencodeBinary], model: "fake/fake-model", ...overrides }),
    chats: () => world.server.requests().filter((entry) => entry.api === "openai-chat"),
  };
}

/** The chat messages of a logged request. */
export function chatMessages(entry: LoggedRequest | undefined): Array<{ role: string; content: unknown }> {
  const body = entry?.body as { messages?: Array<{ role: string; content: unknown }> } | null | undefined;
  return body?.messages ?? [];
}

/** All text of a chat message (string content or text parts). */
export function messageText(message: { content: unknown } | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("");
}

/** Names of the tools a logged chat request offered. */
export function offeredTools(entry: LoggedRequest | undefined): string[] {
  const body = entry?.body as { tools?: Array<{ function?: { name?: string } }> } | null | undefined;
  return (body?.tools ?? []).map((tool) => tool.function?.name ?? "?").sort();
}

/** How the contract suite reads opencode's chat-completions requests. */
export const opencodeWire: ContractWire<OpencodeWorld> = {
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
