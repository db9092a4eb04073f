/**
 * Every CLI runtime's own recognition of its CLI's rate-limit and usage-limit failures: the real
 * codex and gemini against the fake model answering scripted HTTP errors in their provider's shape
 * (pi and claude run the same through the whole CLI in rate-limit-real-cli.test.ts). Each world bounds
 * the CLI's own retries (codex `request_max_retries = 0`, gemini `maxAttempts: 1`). opencode retries
 * a 429 five times itself (honouring `retry-after-ms`) before it reports the error, so its case keeps
 * the provider's hint short.
 */
import { afterEach, describe, expect, it } from "vitest";
import { codexRuntime } from "../../src/runtimes/codex/index.js";
import { geminiRuntime } from "../../src/runtimes/gemini/index.js";
import { opencodeRuntime } from "../../src/runtimes/opencode/index.js";
import type { AgentSendResult, Runtime } from "../../src/runtimes/runtime.js";
import type { FakeHttpError, FakeScript } from "../../src/testing/index.js";
import { type CliWorld, recordingObserver } from "./cli-harness.js";
import { codexRequest, createCodexWorld } from "./codex/codex-world.js";
import { createGeminiWorld } from "./gemini/gemini-world.js";
import { createOpencodeWorld } from "./opencode/opencode-world.js";

interface Scene {
  world: CliWorld;
  send(prompt: string): Promise<AgentSendResult>;
}

const worlds: CliWorld[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) await world.cleanup();
});

async function scene(runtime: "codex" | "gemini", script: FakeScript): Promise<Scene> {
  const send = (target: Runtime, request: Parameters<Runtime["send"]>[0]) =>
    target.send(request, recordingObserver());
  if (runtime === "codex") {
    const world = await createCodexWorld(script);
    worlds.push(world);
    return { world, send: (prompt) => send(codexRuntime, codexRequest(world, { prompt })) };
  }
  const world = await createGeminiWorld(script);
  worlds.push(world);
  return { world, send: (prompt) => send(geminiRuntime, world.request({ prompt })) };
}

const errorStep = (httpError: FakeHttpError): FakeScript => ({
  steps: [{ match: { text: "TURN-1" }, httpError, repeat: true }],
});

// codex reports "exceeded retry limit, last status: 429 Too Many Requests" (no body, no retry-after);
// gemini passes the provider's message on, so its "try again in 7s" is the hint.
const HINTS = { codex: undefined, gemini: 7000 } as const;

describe.each(["codex", "gemini"] as const)("%s recognises rate limits", (runtime) => {
  it("a 429 rate limit with retry-after is rate_limited, not a generic failure", async () => {
    const { send } = await scene(
      runtime,
      errorStep({
        status: 429,
        headers: { "retry-after": "7" },
        message: "Rate limit reached; try again in 7s.",
      }),
    );
    const result = await send("TURN-1 hello");
    expect(result.ok).toBe(false);
    expect({ kind: result.errorKind, error: result.error }).toMatchObject({ kind: "rate_limited" });
    expect(result.retryAfterMs).toBe(HINTS[runtime]);
  }, 180_000);

  it("a spent quota is usage_limit", async () => {
    const { send } = await scene(runtime, errorStep({ status: 429, kind: "usage_limit" }));
    const result = await send("TURN-1 hello");
    expect({ kind: result.errorKind, error: result.error }).toMatchObject({ kind: "usage_limit" });
  }, 180_000);

  it("a 400 bad request stays a generic failure", async () => {
    const { send } = await scene(
      runtime,
      errorStep({ status: 400, message: "rate limit test fixture is invalid" }),
    );
    const result = await send("TURN-1 hello");
    expect(result.ok).toBe(false);
    expect(result.errorKind).not.toBe("rate_limited");
    expect(result.errorKind).not.toBe("usage_limit");
  }, 180_000);
});

describe("opencode recognises rate limits", () => {
  it("after its own five retries, a 429 is rate_limited with the message's hint", async () => {
    const world = await createOpencodeWorld(
      errorStep({
        status: 429,
        headers: { "retry-after-ms": "10" },
        message: "Rate limit reached; try again in 7s.",
      }),
    );
    worlds.push(world);
    const request = world.request({ prompt: "TURN-1 hello", timeouts: { idleMs: 90_000, wallMs: 150_000 } });
    const result = await opencodeRuntime.send(request, recordingObserver());
    expect({ kind: result.errorKind, error: result.error }).toMatchObject({
      kind: "rate_limited",
      error: expect.stringContaining("APIError: Rate limit reached; try again in 7s. (HTTP 429)"),
    });
    expect(result.retryAfterMs).toBe(7000);
    // opencode's own retries came first: six requests in all.
    expect(world.server.requests().filter((entry) => entry.status === 429)).toHaveLength(6);
  }, 180_000);
});
