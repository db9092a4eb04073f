import { afterEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../../src/library.js";
import { geminiRuntime } from "../../../src/runtimes/gemini/index.js";
import { promptWorkflow } from "../../../src/workflows/prompt.js";
import { engineRepo } from "../cli-harness.js";
import {
  contentText,
  createGeminiWorld,
  GEMINI_TEST_MODEL,
  type GeminiWorld,
  geminiBinary,
  geminiContents,
} from "./gemini-world.js";

let world: GeminiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("gemini runtime through the engine", () => {
  it("corrects a malformed JSON reply in the same gemini session", async () => {
    world = await createGeminiWorld({
      steps: [
        { match: { text: "TURN-1" }, reply: 'Done. {"status": "succ' },
        {
          match: { text: "could not be accepted" },
          reply: '{"status": "success", "summary": "fixed", "artifacts": [], "notes_for_next_agent": ""}',
        },
      ],
    });
    const repo = engineRepo(world, {
      codingAgent: "gemini",
      model: GEMINI_TEST_MODEL,
      command: [geminiBinary],
    });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 report back",
      config: repo.config,
      runtimes: [geminiRuntime],
    });
    expect(outcome.reason).toBe("fixed");
    expect(outcome.exitCode).toBe(0);
    const envelopes = repo.query<{ valid: number; reason: string }>(
      "SELECT valid, reason FROM envelopes ORDER BY attempt",
    );
    expect(envelopes.map((row) => [row.valid, row.reason])).toEqual([
      [0, "initial"],
      [1, "json_fix"],
    ]);
    const calls = world.calls();
    expect(calls).toHaveLength(2);
    const history = geminiContents(calls[1]).map(contentText);
    expect(history.some((text) => text.includes("TURN-1 report back"))).toBe(true);
    expect(history).toContain('Done. {"status": "succ');
    expect(history.at(-1)).toContain("could not be accepted");
    expect(world.server.egress()).toEqual([]);
  }, 180_000);
});

describe("gemini doctor", () => {
  it("finds the installed binary, its version, the model and the key names", async () => {
    world = await createGeminiWorld();
    const request = {
      agent: "agent",
      model: GEMINI_TEST_MODEL,
      command: [geminiBinary],
      env: world.env,
      cwd: world.work,
    };
    const checks = (await geminiRuntime.doctor?.(request)) ?? [];
    expect(checks.map((check) => check.item)).toEqual([
      "binary",
      "version",
      "model",
      "GEMINI_API_KEY",
      "usage statistics",
    ]);
    expect(checks.every((check) => check.ok)).toBe(true);
    expect(checks[0]?.detail).toBe(geminiBinary);
    expect(checks[1]?.detail).toBe("gemini-cli 0.61.0");
    expect(JSON.stringify(checks)).not.toContain("fake-key");

    const unknown = (await geminiRuntime.doctor?.({ ...request, model: "gemini-0-nano" })) ?? [];
    expect(unknown.find((check) => check.item === "model")?.ok).toBe(false);
    const missing = (await geminiRuntime.doctor?.({ ...request, command: ["no-such-gemini-binary"] })) ?? [];
    expect(missing).toEqual([
      { ok: false, item: "binary", detail: expect.stringContaining("no-such-gemini-binary not found") },
    ]);
    expect(world.calls()).toEqual([]);
  });
});
