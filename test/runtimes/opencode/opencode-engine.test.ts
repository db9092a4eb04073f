import { afterEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../../src/library.js";
import { opencodeRuntime } from "../../../src/runtimes/opencode/index.js";
import { promptWorkflow } from "../../../src/workflows/prompt.js";
import { engineRepo } from "../cli-harness.js";
import {
  chatMessages,
  createOpencodeWorld,
  messageText,
  type OpencodeWorld,
  opencodeBinary,
} from "./opencode-world.js";

let world: OpencodeWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("opencode runtime through the engine", () => {
  it("corrects a malformed JSON reply in the same opencode session", async () => {
    world = await createOpencodeWorld({
      steps: [
        { match: { text: "TURN-1" }, reply: 'Done. {"status": "succ', usage: { input: 120, output: 8 } },
        {
          match: { text: "could not be accepted" },
          reply: '{"status": "success", "summary": "fixed", "artifacts": [], "notes_for_next_agent": ""}',
          usage: { input: 200, output: 30 },
        },
      ],
    });
    // model "" leaves the choice to opencode: its config names fake/fake-model.
    const repo = engineRepo(world, { codingAgent: "opencode", command: [opencodeBinary] });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 report back",
      // The agent by name: its own prompts carry the request as the first user message.
      agent: "agent",
      config: repo.config,
      runtimes: [opencodeRuntime],
    });
    expect(outcome.exitCode).toBe(0);
    const envelopes = repo.query<{ valid: number; reason: string }>(
      "SELECT valid, reason FROM envelopes ORDER BY attempt",
    );
    expect(envelopes.map((row) => [row.valid, row.reason])).toEqual([
      [0, "initial"],
      [1, "json_fix"],
    ]);
    const chats = world.chats();
    expect(chats).toHaveLength(2);
    const texts = chatMessages(chats[1]).map((message) => `${message.role}:${messageText(message)}`);
    expect(texts.some((text) => text.startsWith("user:TURN-1 report back"))).toBe(true);
    expect(texts).toContain('assistant:Done. {"status": "succ');
    expect(texts.at(-1)).toContain("could not be accepted");
    // Usage summed over both sends; cost from the per-million prices in the opencode config.
    const [usage] = repo.query<{ input_tokens: number; output_tokens: number; cost_usd: number }>(
      "SELECT input_tokens, output_tokens, cost_usd FROM sessions",
    );
    expect(usage).toMatchObject({ input_tokens: 320, output_tokens: 38 });
    expect(usage?.cost_usd).toBeCloseTo((320 * 3 + 38 * 15) / 1e6, 12);
    expect(world.server.egress()).toEqual([]);
  }, 240_000);
});
