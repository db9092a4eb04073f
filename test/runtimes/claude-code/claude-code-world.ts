import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentSendRequest } from "../../../src/runtimes/runtime.js";
import type { FakeScript, LoggedRequest } from "../../../src/testing/index.js";
import { binDir, type CliWorld, createCliWorld, sendRequest } from "../cli-harness.js";
import type { ContractWire } from "../runtime-contract-world.js";

/** The real claude CLI installed as a dev dependency (a native binary). */
export const claudeBinary = path.join(binDir, "claude");

/** A CLI world whose env also turns claude's request retries off, and requests that run claude. */
export interface ClaudeWorld extends CliWorld {
  request(overrides?: Partial<AgentSendRequest>): AgentSendRequest;
  /** The Anthropic Messages requests the fake received, oldest first. */
  calls(): LoggedRequest[];
}

/**
 * `createCliWorld` plus `CLAUDE_CODE_MAX_RETRIES=0` and an empty user settings file in the scratch
 * HOME. The endpoint comes from the env (`ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`).
 */
export async function createClaudeWorld(script?: FakeScript): Promise<ClaudeWorld> {
  const world = await createCliWorld(script);
  world.env.CLAUDE_CODE_MAX_RETRIES = "0";
  mkdirSync(path.join(world.home, ".claude"), { recursive: true });
  writeFileSync(path.join(world.home, ".claude/settings.json"), "{}\n");
  return {
    ...world,
    request: (overrides = {}) =>
      sendRequest(world, { command: [claudeBinary], env: { ...world.env }, ...overrides }),
    calls: () => world.server.requests().filter((entry) => entry.api === "anthropic"),
  };
}

interface AnthropicBlock {
  type?: string;
  text?: string;
  content?: unknown;
}
interface AnthropicMessage {
  role?: string;
  content?: string | AnthropicBlock[];
}
interface AnthropicBody {
  system?: Array<{ text?: string }>;
  messages?: AnthropicMessage[];
  tools?: Array<{ name: string }>;
  thinking?: { type?: string; budget_tokens?: number };
  output_config?: { effort?: string };
}

/** The body of a logged Anthropic request. */
export function anthropicBody(entry: LoggedRequest | undefined): AnthropicBody {
  return (entry?.body ?? {}) as AnthropicBody;
}

/** All text of one message (string content, or its text blocks). */
export function messageText(message: AnthropicMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((block) => block.text ?? "").join("");
}

/** The user-role texts of a logged request, in order (claude also puts `role: system` messages there). */
export function userTexts(entry: LoggedRequest | undefined): string[] {
  return (anthropicBody(entry).messages ?? []).filter((m) => m.role === "user").map(messageText);
}

/** The joined system prompt blocks of a logged request. */
export function systemText(entry: LoggedRequest | undefined): string {
  return (anthropicBody(entry).system ?? []).map((block) => block.text ?? "").join("\n");
}

/** The tool names a logged request offers. */
export function offeredTools(entry: LoggedRequest | undefined): string[] {
  return (anthropicBody(entry).tools ?? []).map((tool) => tool.name);
}

/** How the contract suite reads claude's Anthropic Messages requests. */
export const claudeWire: ContractWire<ClaudeWorld> = {
  requests: (world) => world.calls(),
  userTexts,
  systemText,
  offeredTools,
};
