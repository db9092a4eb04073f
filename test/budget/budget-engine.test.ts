import { afterEach, describe, expect, it } from "vitest";
import { defineWorkflow } from "../../src/api/run-api.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import { runWorkflow } from "../../src/library.js";
import { geminiRuntime } from "../../src/runtimes/gemini/index.js";
import type { AgentSendRequest, Runtime } from "../../src/runtimes/runtime.js";
import { promptWorkflow } from "../../src/workflows/prompt.js";
import { createRepo, ok, type Repo } from "../engine/workflow-fixture.js";
import { engineRepo } from "../runtimes/cli-harness.js";
import {
  createGeminiWorld,
  GEMINI_TEST_MODEL,
  type GeminiWorld,
  geminiBinary,
} from "../runtimes/gemini/gemini-world.js";

let repo: Repo | undefined;
let world: GeminiWorld | undefined;
afterEach(async () => {
  repo?.cleanup();
  repo = undefined;
  await world?.cleanup();
  world = undefined;
});

/** An in-process exec stand-in: replies in turn, each send costing `cost`, and keeps every request. */
function recordingRuntime(replies: string[], cost: number, seen: AgentSendRequest[]): Runtime {
  return {
    id: "exec",
    specVersion: "sssf-runtime/1",
    async send(request) {
      seen.push(request);
      const text = replies[seen.length - 1] ?? "";
      return {
        ok: true,
        text,
        usage: { inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: cost },
        contextTokens: null,
      };
    },
  };
}

describe("the budget a send is given", () => {
  it("tells the runtime what it may still spend: the tightest of the run's and the phase's budgets", async () => {
    repo = createRepo({ a: [] }, { top: { limits: { max_cost_usd: 0.5 } } });
    const seen: AgentSendRequest[] = [];
    const workflow = defineWorkflow({
      name: "budgeted",
      description: "",
      agents: ["a"],
      async run(run) {
        // Run budget 0.5, 0.2 per send: the first send may spend 0.5, the correction 0.3.
        await run.agent("loose", { owner: "a", description: "" }, (p) =>
          p.call({ outputType: GenericOutput, prompt: "go" }),
        );
        // The phase's 0.05 is tighter than the run's remaining 0.1.
        await run
          .agent("tight", { owner: "a", description: "", budget: { maxCostUsd: 0.05 } }, (p) =>
            p.call({ outputType: GenericOutput, prompt: "go" }),
          )
          .catch(() => null);
        return run.finish({ accepted: true });
      },
    });
    const outcome = await runWorkflow({
      workflow,
      request: "go",
      config: repo.config,
      runtimes: [recordingRuntime(["not json", ok(), ok()], 0.2, seen)],
    });
    expect(outcome.exitCode).toBe(0);
    const budgets = seen.map((request) => request.maxBudgetUsd);
    expect(budgets).toHaveLength(3);
    expect(budgets[0]).toBeCloseTo(0.5, 12);
    expect(budgets[1]).toBeCloseTo(0.3, 12);
    expect(budgets[2]).toBeCloseTo(0.05, 12);
    const phases = repo.query<{ name: string; error: string | null }>("SELECT name, error FROM phases");
    expect(phases).toEqual([
      { name: "loose", error: null },
      { name: "tight", error: "budget exceeded: run max_cost_usd 0.50 — spent 0.60" },
    ]);
  });

  it("gives no budget to a send when none is set", async () => {
    repo = createRepo({ a: [] });
    const seen: AgentSendRequest[] = [];
    await runWorkflow({
      workflow: promptWorkflow,
      request: "go",
      config: repo.config,
      runtimes: [recordingRuntime([ok()], 0.2, seen)],
    });
    expect(seen.map((request) => request.maxBudgetUsd)).toEqual([undefined]);
  });
});

describe("prices for a real runtime that reports no cost", () => {
  it("prices gemini's tokens at the shipped price of its model, traced as priced", async () => {
    world = await createGeminiWorld({
      steps: [
        {
          match: { text: "TURN-1" },
          reply: '{"status": "success", "summary": "priced", "artifacts": [], "notes_for_next_agent": ""}',
          usage: { input: 1000, output: 200, cacheRead: 400 },
        },
      ],
    });
    const gemini = engineRepo(world, {
      codingAgent: "gemini",
      model: GEMINI_TEST_MODEL,
      command: [geminiBinary],
    });
    const outcome = await runWorkflow({
      workflow: promptWorkflow,
      request: "TURN-1 report back",
      config: gemini.config,
      runtimes: [geminiRuntime],
    });
    expect(outcome.exitCode).toBe(0);
    const [session] = gemini.query<{
      input_tokens: number;
      output_tokens: number;
      cache_read_tokens: number;
      cost_usd: number;
    }>("SELECT input_tokens, output_tokens, cache_read_tokens, cost_usd FROM sessions");
    expect(session).toBeDefined();
    if (!session) return;
    // gemini-2.5-flash: 0.30 in, 2.50 out, 0.03 cache reads per million tokens.
    const expected =
      (session.input_tokens * 0.3 + session.output_tokens * 2.5 + session.cache_read_tokens * 0.03) / 1e6;
    expect(session.input_tokens + session.cache_read_tokens).toBeGreaterThan(0);
    expect(session.cost_usd).toBeGreaterThan(0);
    expect(session.cost_usd).toBeCloseTo(expected, 12);
    const [end] = gemini.query<{ payload: string }>("SELECT payload FROM events WHERE type = 'agent_end'");
    expect(JSON.parse(end?.payload ?? "{}")).toMatchObject({
      cost_source: "priced",
      price: GEMINI_TEST_MODEL,
      price_from: "default",
    });
  }, 180_000);
});
