import { afterEach, describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/library.js";
import { piRuntime } from "../../src/runtimes/pi/index.js";
import type { EventRow } from "../../src/trace/events.js";
import { promptWorkflow } from "../../src/workflows/prompt.js";
import { engineRepo } from "../runtimes/cli-harness.js";
import { createPiWorld, type PiWorld, piBinary } from "../runtimes/pi/pi-world.js";
import { one } from "./otel-fixture.js";
import { OtlpReceiver } from "./otlp-receiver.js";

// Real pi against the fake model, exported through `observability.otlp`: the send's GenAI attributes
// carry the tokens the fake model reported, and pi's tool call runs under it.

let world: PiWorld | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await world?.cleanup();
  await receiver?.close();
  world = undefined;
  receiver = undefined;
});

const REPORT =
  '{"status": "success", "summary": "noted", "artifacts": ["notes.md"], "notes_for_next_agent": ""}';

describe("a pi run exported over OTLP/HTTP", () => {
  it("the send's provider, models and tokens are the fake model's; the tool call hangs under it", async () => {
    receiver = await OtlpReceiver.start();
    world = await createPiWorld({
      steps: [
        {
          match: { text: "TAKE-NOTES", afterToolResult: false },
          writeFile: { path: "notes.md", content: "noted\n" },
          usage: { input: 1000, output: 50, cacheRead: 200, cacheWrite: 0 },
        },
        {
          match: { afterToolResult: true },
          reply: REPORT,
          usage: { input: 1100, output: 70, cacheRead: 300, cacheWrite: 0 },
        },
      ],
    });
    const repo = engineRepo(world, { codingAgent: "pi", model: "fake/fake-model", command: [piBinary] });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TAKE-NOTES in notes.md",
      agent: "agent",
      config: { ...repo.config, otlp: { endpoint: receiver.endpoint, headers: {} } },
      runtimes: [piRuntime],
    });
    expect(outcome.exitCode).toBe(0);
    expect(world.chats()).toHaveLength(2);

    const spans = receiver.spans;
    const run = one(spans, "sssf.run");
    const phase = one(spans, "sssf.phase prompt");
    const send = one(spans, "invoke_agent agent");
    expect(phase.parentSpanId).toBe(run.spanId);
    expect(send.parentSpanId).toBe(phase.spanId);
    const [end] = repo.query<EventRow>("SELECT * FROM events WHERE type = 'agent_end'");
    const usage = JSON.parse(end?.payload ?? "{}").usage as Record<string, number>;
    expect(send.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "fake",
      "gen_ai.request.model": "fake/fake-model",
      "gen_ai.response.model": "fake/fake-model",
      "sssf.coding_agent": "pi",
      "sssf.adw_id": outcome.adwId,
      // The two model turns of the send, summed: what the fake model reported.
      "gen_ai.usage.output_tokens": 50 + 70,
      "gen_ai.usage.cache_read.input_tokens": 200 + 300,
      // Uncached input: the fake sends prompt_tokens = input + cached, pi takes the cached part out.
      "gen_ai.usage.input_tokens": 1000 + 1100,
      "sssf.cost_usd": usage.cost,
    });
    expect(usage.input_tokens).toBe(1000 + 1100);
    expect(send.attributes["sssf.cost_usd"]).toBeGreaterThan(0);
    const tool = spans.find((span) => span.name.startsWith("execute_tool "));
    expect(tool?.parentSpanId).toBe(send.spanId);
    expect(tool?.attributes["gen_ai.tool.name"]).toBe("write");
    expect(String(tool?.attributes["gen_ai.tool.call.arguments"])).toContain("notes.md");
    expect(run.attributes["sssf.outcome"]).toBe("accepted");
  }, 180_000);
});
