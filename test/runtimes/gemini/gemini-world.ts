import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentSendRequest } from "../../../src/runtimes/runtime.js";
import type { FakeScript, LoggedRequest } from "../../../src/testing/index.js";
import { binDir, type CliWorld, createCliWorld, sendRequest } from "../cli-harness.js";
import type { ContractWire } from "../runtime-contract-world.js";

/** The real gemini CLI installed as a dev dependency. */
export const geminiBinary = path.join(binDir, "gemini");
/** Always passed explicitly: without `-m`, gemini first asks a router model which model to use. */
export const GEMINI_TEST_MODEL = "gemini-2.5-flash";

/** A CLI world whose scratch HOME has gemini's settings, and requests that run gemini. */
export interface GeminiWorld extends CliWorld {
  request(overrides?: Partial<AgentSendRequest>): AgentSendRequest;
  /** The Gemini-API requests the fake received, oldest first. */
  calls(): LoggedRequest[];
  /** gemini files that appeared in the system temp folder since the world was made (should be none). */
  strayTmpFiles(): string[];
}

/**
 * `createCliWorld` plus `~/.gemini/settings.json`: API-key auth (the fake's key comes from the env),
 * folder trust, usage statistics, telemetry and auto-update off, a single attempt per request.
 */
export async function createGeminiWorld(script?: FakeScript): Promise<GeminiWorld> {
  const world = await createCliWorld(script);
  mkdirSync(path.join(world.home, ".gemini"), { recursive: true });
  const settings = {
    security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
  };
  writeFileSync(path.join(world.home, ".gemini/settings.json"), JSON.stringify(settings, null, 2));
  const before = new Set(geminiTmpFiles());
  return {
    ...world,
    request: (overrides = {}) =>
      sendRequest(world, {
        command: [geminiBinary],
        model: GEMINI_TEST_MODEL,
        env: { ...world.env },
        ...overrides,
      }),
    calls: () => world.server.requests().filter((entry) => entry.api === "gemini"),
    strayTmpFiles: () => geminiTmpFiles().filter((file) => !before.has(file)),
  };
}

/** gemini's crash reports and scratch files directly in the system temp folder. */
function geminiTmpFiles(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith("gemini-"));
}

interface GeminiContent {
  role?: string;
  parts?: Array<{ text?: string; functionCall?: unknown; functionResponse?: unknown }>;
}

/** The `contents` of a logged Gemini request. */
export function geminiContents(entry: LoggedRequest | undefined): GeminiContent[] {
  return ((entry?.body as { contents?: GeminiContent[] } | null)?.contents ?? []) as GeminiContent[];
}

/** All text of a content's parts. */
export function contentText(content: GeminiContent | undefined): string {
  return (content?.parts ?? []).map((part) => part.text ?? "").join("");
}

/** The function names a logged Gemini request declares. */
export function declaredTools(entry: LoggedRequest | undefined): string[] {
  const tools = ((entry?.body as { tools?: Array<{ functionDeclarations?: Array<{ name: string }> }> } | null)
    ?.tools ?? []) as Array<{ functionDeclarations?: Array<{ name: string }> }>;
  return tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name));
}

/** The system instruction text of a logged Gemini request. */
export function systemText(entry: LoggedRequest | undefined): string {
  const body = entry?.body as { systemInstruction?: GeminiContent } | null;
  return contentText(body?.systemInstruction);
}

/** How the contract suite reads gemini's Gemini-API requests. */
export const geminiWire: ContractWire<GeminiWorld> = {
  requests: (world) => world.calls(),
  userTexts: (entry) =>
    geminiContents(entry)
      .filter((content) => content.role === "user")
      .map(contentText),
  systemText,
  offeredTools: declaredTools,
};
