import { afterEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../../src/library.js";
import { claudeCodeRuntime } from "../../../src/runtimes/claude-code/index.js";
import { promptWorkflow } from "../../../src/workflows/prompt.js";
import { engineRepo } from "../cli-harness.js";
import { type ClaudeWorld, claudeBinary, createClaudeWorld, userTexts } from "./claude-code-world.js";

let world: ClaudeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("claude_code runtime through the engine", () => {
  it("corrects a malformed JSON reply in the same claude session and sums usage over the sends", async () => {
    world = await createClaudeWorld({
      steps: [
        {
          match: { text: "TURN-1" },
          reply: 'Done. {"status": "succ',
          usage: { input: 100, output: 20, cacheRead: 30, cacheWrite: 40 },
        },
        {
          match: { text: "could not be accepted" },
          reply: '{"status": "success", "summary": "fixed", "artifacts": [], "notes_for_next_agent": ""}',
          usage: { input: 200, output: 10, cacheRead: 60, cacheWrite: 5 },
        },
      ],
    });
    // model "" leaves the choice to claude; the fake answers whatever model is asked for.
    // The door's own correction: claude's structured-output retries (and their reminder request) are off
    // here, so each text reply is one request; claude-code-native-schema.test.ts covers them.
    const repo = engineRepo(world, {
      codingAgent: "claude_code",
      command: [claudeBinary],
      env: { MAX_STRUCTURED_OUTPUT_RETRIES: "0" },
    });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 report back",
      config: repo.config,
      runtimes: [claudeCodeRuntime],
    });
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
    const second = userTexts(calls[1]);
    expect(second.some((text) => text.includes("TURN-1 report back"))).toBe(true);
    expect(second.at(-1)).toContain("could not be accepted");

    const ends = repo.query<{ payload: string }>("SELECT payload FROM events WHERE type = 'agent_end'");
    const usages = ends.map((row) => (JSON.parse(row.payload) as { usage: Record<string, number> }).usage);
    expect(usages.map((usage) => usage.input_tokens)).toEqual([100, 200]);
    expect(usages.map((usage) => usage.cache_read_tokens)).toEqual([30, 60]);
    expect(usages.every((usage) => (usage.cost ?? 0) > 0)).toBe(true);
    const [session] = repo.query<{
      input_tokens: number;
      output_tokens: number;
      cache_write_tokens: number;
      cost_usd: number;
    }>("SELECT input_tokens, output_tokens, cache_write_tokens, cost_usd FROM sessions");
    expect(session).toMatchObject({ input_tokens: 300, output_tokens: 30, cache_write_tokens: 45 });
    expect(session?.cost_usd).toBeCloseTo((usages[0]?.cost ?? 0) + (usages[1]?.cost ?? 0), 9);
    expect(world.server.egress()).toEqual([]);
  }, 180_000);
});
