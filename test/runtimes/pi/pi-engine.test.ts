import { afterEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../../src/library.js";
import { piRuntime } from "../../../src/runtimes/pi/index.js";
import { promptWorkflow } from "../../../src/workflows/prompt.js";
import { JSON_DOOR_CLASSES } from "../../helpers/door-classes.js";
import { engineRepo } from "../cli-harness.js";
import { chatMessages, createPiWorld, messageText, type PiWorld, piBinary } from "./pi-world.js";

let world: PiWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("pi runtime through the engine", () => {
  it("corrects a malformed JSON reply in the same pi session", async () => {
    world = await createPiWorld({
      steps: [
        { match: { text: "TURN-1" }, reply: 'Done. {"status": "succ' },
        {
          match: { text: "could not be accepted" },
          reply: '{"status": "success", "summary": "fixed", "artifacts": [], "notes_for_next_agent": ""}',
        },
      ],
    });
    // model "" leaves the choice to pi: settings.json names fake/fake-model.
    const repo = engineRepo(world, { codingAgent: "pi", command: [piBinary] });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 report back",
      // The agent by name: its own prompts carry the request as the first user message.
      agent: "agent",
      config: repo.config,
      runtimes: [piRuntime],
    });
    expect(outcome.exitCode).toBe(0);
    const envelopes = repo.query<{ valid: number; reason: string; attempt: number }>(
      "SELECT valid, reason, attempt FROM envelopes ORDER BY attempt",
    );
    expect(envelopes.map((row) => [row.valid, row.reason])).toEqual([
      [0, "initial"],
      [1, "json_fix"],
    ]);
    const chats = world.chats();
    expect(chats).toHaveLength(2);
    const second = chatMessages(chats[1]);
    const texts = second.map((message) => `${message.role}:${messageText(message)}`);
    expect(texts.some((text) => text.startsWith("user:TURN-1 report back"))).toBe(true);
    expect(texts.some((text) => text === 'assistant:Done. {"status": "succ')).toBe(true);
    expect(texts.at(-1)).toContain("could not be accepted");
    expect(world.server.egress()).toEqual([]);
  }, 180_000);

  for (const { name, reply, named } of JSON_DOOR_CLASSES) {
    it(`the door's grammar through real pi: ${name} is corrected in the same session`, async () => {
      world = await createPiWorld({
        steps: [
          { match: { text: "TURN-1" }, reply },
          {
            match: { text: "could not be accepted" },
            reply:
              '{"status": "fail", "summary": "the true report", "artifacts": [], "notes_for_next_agent": ""}',
          },
        ],
      });
      const repo = engineRepo(world, { codingAgent: "pi", command: [piBinary] });
      const outcome = await runWorkflow({
        workflow: promptWorkflow,
        request: "TURN-1 report back",
        // The agent by name: its own prompts carry the request as the first user message.
        agent: "agent",
        config: repo.config,
        runtimes: [piRuntime],
      });
      expect(outcome.exitCode).toBe(1);
      const rows = repo.query<{ valid: number; reason: string; status: string | null }>(
        "SELECT valid, reason, status FROM envelopes ORDER BY attempt",
      );
      expect(rows).toEqual([
        { valid: 0, reason: "initial", status: null },
        { valid: 1, reason: "json_fix", status: "fail" },
      ]);
      const chats = world.chats();
      expect(chats).toHaveLength(2);
      expect(messageText(chatMessages(chats[1]).at(-1))).toMatch(named);
    }, 180_000);
  }
});
