import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adwIdFrom, collect, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { alive, waitFor } from "../helpers/wait.js";

// Unboxed (SSSF_SANDBOX=off): the hanging-send test reads the host pid its agent's grandchild writes, within a 1 s budget; test/sandbox covers the box.
process.env.SSSF_SANDBOX = "off";

interface EventRow {
  type: string;
  name: string;
  payload: string;
}

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

const reply = (summary: string) => envelopeJson({ summary });
const payloadOf = (row: EventRow | undefined) => JSON.parse(row?.payload ?? "{}") as Record<string, unknown>;

function budgetErrors(): Record<string, unknown>[] {
  return sb
    .query<EventRow>("SELECT type, name, payload FROM events WHERE type = 'error' ORDER BY rowid")
    .map(payloadOf)
    .filter((payload) => payload.budget !== undefined);
}

/** A repo workflow: one phase per entry, each caught, the outcomes joined as the run's reason. */
function writeWorkflow(name: string, phases: { name: string; owner: string; budget?: object }[]): void {
  const file = path.join(sb.dir, `adws/adw_${name}.mjs`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    `import { defineWorkflow, GenericOutput } from "sssf";
const phases = ${JSON.stringify(phases)};
export default defineWorkflow({
  name: ${JSON.stringify(name)},
  description: "budget test",
  agents: ${JSON.stringify([...new Set(phases.map((p) => p.owner))])},
  async run(run) {
    const outcomes = [];
    for (const phase of phases) {
      try {
        await run.agent(phase.name, { owner: phase.owner, description: phase.name, ...(phase.budget ? { budget: phase.budget } : {}) },
          (p) => p.call({ outputType: GenericOutput, prompt: "PHASE-" + phase.name }));
        outcomes.push(phase.name + ": ok");
      } catch (error) {
        outcomes.push(phase.name + ": " + (error.reason ?? error.message));
      }
    }
    return run.finish({ accepted: true, reason: outcomes.join(" | ") });
  },
});
`,
  );
}

describe("run budgets", () => {
  it("fails the phase once the run's cost passes limits.max_cost_usd, naming the budget and the figures", async () => {
    sb.setup(
      [{ name: "assistant", turns: [{ reply: reply("pricey"), usage: { input_tokens: 10, cost: 0.53 } }] }],
      {
        limits: { max_cost_usd: 0.5 },
      },
    );
    const result = await sb.run(["run", "prompt", "spend"]);
    expect(result.code).toBe(1);
    const reason = "budget exceeded: run max_cost_usd 0.50 — spent 0.53";
    expect(result.stdout).toContain(reason);
    expect(sb.query("SELECT status, error FROM phases WHERE kind = 'agent'")).toEqual([
      { status: "fail", error: reason },
    ]);
    expect(budgetErrors()).toEqual([
      expect.objectContaining({ budget: "run", key: "max_cost_usd", limit: 0.5, spent: 0.53, unit: "usd" }),
    ]);
    const [session] = sb.query<{ status: string; cost_usd: number }>("SELECT status, cost_usd FROM sessions");
    expect(session).toMatchObject({ status: "fail", cost_usd: 0.53 });
  });

  it("fails the phase once the run's tokens pass limits.max_tokens (every kind counted)", async () => {
    sb.setup(
      [
        {
          name: "assistant",
          turns: [
            {
              reply: reply("wordy"),
              usage: { input_tokens: 600, output_tokens: 300, cache_read_tokens: 200 },
            },
          ],
        },
      ],
      { limits: { max_tokens: 1000 } },
    );
    const result = await sb.run(["run", "prompt", "talk"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("budget exceeded: run max_tokens 1000 — spent 1100");
    expect(budgetErrors()).toEqual([
      expect.objectContaining({ budget: "run", key: "max_tokens", limit: 1000, spent: 1100, unit: "tokens" }),
    ]);
  });

  it("ends a hanging send at limits.max_run_seconds and kills the agent's whole process group", async () => {
    // Room for the agent to start its grandchild on a loaded machine before the budget ends the run.
    sb.setup([{ name: "assistant", turns: [{ spawn_grandchild: true, hang: true }] }], {
      limits: { max_run_seconds: 4 },
    });
    const child = sb.start(["run", "prompt", "hang", "--adw-id", "b0d9e7a1"]);
    const done = collect(child);
    const pidFile = path.join(sb.sessionDir("b0d9e7a1"), "assistant/exec_sessions/grandchild.pid");
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const grandchild = Number(readFileSync(pidFile, "utf8").trim());
    const result = await done;
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/budget exceeded: run max_run_seconds 4 — ran \d+\.\d s/);
    await waitFor(() => !alive(grandchild), 5000, "the grandchild to die");
    const [proc] = sb.query<{ pid: number; status: string }>("SELECT pid, status FROM processes");
    expect(alive(Number(proc?.pid))).toBe(false);
    expect(budgetErrors()).toEqual([
      expect.objectContaining({
        budget: "run",
        key: "max_run_seconds",
        limit: 4,
        unit: "seconds",
        when: "during_send",
      }),
    ]);
  });

  it("ends a hanging send at its agent's per-phase max_seconds", async () => {
    sb.setup([{ name: "assistant", turns: [{ hang: true }], extra: { limits: { max_seconds: 1 } } }]);
    const result = await sb.run(["run", "prompt", "hang"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/budget exceeded: agent assistant max_seconds 1 — ran \d+\.\d s/);
    expect(sb.query("SELECT status FROM processes")).toEqual([{ status: "killed" }]);
  });

  it("aborts a send while it streams usage past the budget, before the agent finishes", async () => {
    // An agent that reports its spend and then never ends: only the budget can stop it.
    const script = path.join(sb.agentsDir, "spender.mjs");
    writeFileSync(
      script,
      `process.stdin.resume();
process.stdin.on("data", () => {});
process.stdin.on("end", () => {
  console.log(JSON.stringify({ type: "usage", input_tokens: 40, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0, cost: 2 }));
  setInterval(() => {}, 1000);
});
`,
    );
    sb.setup([{ name: "assistant", turns: [] }], { limits: { max_cost_usd: 1 } });
    const config = JSON.parse(
      readFileSync(path.join(sb.dir, "adws/adw_sssf_config/sssf.config.yaml"), "utf8"),
    );
    config.agents[0].command = [process.execPath, script];
    sb.writeConfig(config);
    const result = await sb.run(["run", "prompt", "spend forever"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("budget exceeded: run max_cost_usd 1.00 — spent 2.00");
    const [proc] = sb.query<{ pid: number; status: string }>("SELECT pid, status FROM processes");
    expect(proc?.status).toBe("killed");
    expect(alive(Number(proc?.pid))).toBe(false);
    expect(budgetErrors()).toEqual([expect.objectContaining({ when: "during_send", spent: 2, limit: 1 })]);
    const [agentEnd] = sb.query<EventRow>("SELECT type, name, payload FROM events WHERE type = 'agent_end'");
    expect(payloadOf(agentEnd)).toMatchObject({ error_kind: "aborted", budget_exceeded: expect.any(String) });
  });

  it("fails a phase started after the run's budget is spent at once, without calling its agent", async () => {
    sb.setup(
      [
        { name: "a", turns: [{ match: "PHASE-first", reply: reply("spent it all"), usage: { cost: 0.5 } }] },
        { name: "b", turns: [{ match: "PHASE-second", reply: reply("never asked") }] },
      ],
      { limits: { max_cost_usd: 0.5 } },
    );
    writeWorkflow("two_phases", [
      { name: "first", owner: "a" },
      { name: "second", owner: "b" },
    ]);
    const result = await sb.run(["run", "two_phases", "go"]);
    expect(result.code).toBe(0);
    const [session] = sb.query<{ reason: string }>("SELECT reason FROM sessions");
    expect(session?.reason).toBe(
      "first: ok | second: budget exhausted: run max_cost_usd 0.50 — spent 0.50; b was not called",
    );
    expect(sb.agent("b").sends()).toEqual([]);
    expect(budgetErrors()).toEqual([
      expect.objectContaining({ budget: "run", when: "before_send", spent: 0.5 }),
    ]);
    expect(sb.query("SELECT name, status FROM phases ORDER BY number")).toEqual([
      { name: "first", status: "success" },
      { name: "second", status: "fail" },
    ]);
  });

  it("a phase's budget overrides its agent's limits key by key; the agent's apply where the phase sets none", async () => {
    sb.setup(
      [
        {
          name: "a",
          turns: [
            { match: "PHASE-wide", reply: reply("wide"), usage: { input_tokens: 500, cost: 0.01 } },
            { match: "PHASE-inherit", reply: reply("inherit"), usage: { input_tokens: 500, cost: 0.01 } },
            { match: "PHASE-narrow", reply: reply("narrow"), usage: { input_tokens: 50, cost: 0.2 } },
            { match: "PHASE-tokens", reply: reply("tokens"), usage: { input_tokens: 150, cost: 0.01 } },
          ],
          extra: { limits: { max_tokens: 100, max_cost_usd: 1 } },
        },
      ],
      { limits: { max_cost_usd: 10 } },
    );
    writeWorkflow("precedence", [
      { name: "wide", owner: "a", budget: { maxTokens: 1000 } },
      { name: "inherit", owner: "a" },
      { name: "narrow", owner: "a", budget: { maxCostUsd: 0.1 } },
      { name: "tokens", owner: "a", budget: { maxCostUsd: 0.1 } },
    ]);
    const result = await sb.run(["run", "precedence", "go"]);
    expect(result.code).toBe(0);
    const [session] = sb.query<{ reason: string }>("SELECT reason FROM sessions");
    expect(session?.reason.split(" | ")).toEqual([
      "wide: ok",
      "inherit: budget exceeded: agent a max_tokens 100 — spent 500",
      "narrow: budget exceeded: phase narrow budget.maxCostUsd 0.10 — spent 0.20",
      // The phase overrides only max_cost_usd: the agent's max_tokens still holds.
      "tokens: budget exceeded: agent a max_tokens 100 — spent 150",
    ]);
    expect(budgetErrors().map((p) => [p.budget, p.key, p.limit, p.spent])).toEqual([
      ["agent", "max_tokens", 100, 500],
      ["phase", "budget.maxCostUsd", 0.1, 0.2],
      ["agent", "max_tokens", 100, 150],
    ]);
  });

  it("rejects a phase budget that is not a positive number, naming the key", async () => {
    sb.setup([{ name: "a", turns: [{ match: "PHASE-bad", reply: reply("never") }] }]);
    writeWorkflow("bad_budget", [{ name: "bad", owner: "a", budget: { maxCostUsd: -1 } }]);
    await sb.run(["run", "bad_budget", "go"]);
    const [session] = sb.query<{ reason: string }>("SELECT reason FROM sessions");
    expect(session?.reason).toBe("bad: phase bad: budget.maxCostUsd must be a positive number, got -1");
    expect(sb.agent("a").sends()).toEqual([]);
  });
});

describe("prices", () => {
  function agentEnds(): Record<string, unknown>[] {
    return sb
      .query<EventRow>("SELECT type, name, payload FROM events WHERE type = 'agent_end' ORDER BY rowid")
      .map(payloadOf);
  }

  it("prices a send that reports tokens but no cost: shipped defaults, the config's table, the source traced", async () => {
    const usage = { input_tokens: 1000, output_tokens: 100, cache_read_tokens: 2000 };
    sb.setup(
      [
        {
          name: "a",
          turns: [{ match: "PHASE-one", reply: reply("one"), usage }],
          extra: { model: "gpt-5.5" },
        },
        {
          name: "b",
          turns: [{ match: "PHASE-two", reply: reply("two"), usage }],
          extra: { model: "house-model" },
        },
        {
          name: "c",
          turns: [{ match: "PHASE-three", reply: reply("three"), usage: { ...usage, cost: 0.25 } }],
          extra: { model: "gpt-5.5" },
        },
      ],
      { prices: { "house-model": { input: 1, output: 2 } } },
    );
    writeWorkflow("priced", [
      { name: "one", owner: "a" },
      { name: "two", owner: "b" },
      { name: "three", owner: "c" },
    ]);
    const result = await sb.run(["run", "priced", "go"]);
    expect(result.code).toBe(0);
    const gpt = (1000 * 5 + 100 * 30 + 2000 * 0.5) / 1e6;
    // No cache price given: cache reads cost what input does.
    const house = (1000 * 1 + 100 * 2 + 2000 * 1) / 1e6;
    const phases = sb.query<{ name: string; cost_usd: number }>(
      "SELECT name, cost_usd FROM phases ORDER BY number",
    );
    expect(phases.map((p) => p.name)).toEqual(["one", "two", "three"]);
    expect(phases[0]?.cost_usd).toBeCloseTo(gpt, 12);
    expect(phases[1]?.cost_usd).toBeCloseTo(house, 12);
    expect(phases[2]?.cost_usd).toBe(0.25);
    const [session] = sb.query<{ cost_usd: number }>("SELECT cost_usd FROM sessions");
    expect(session?.cost_usd).toBeCloseTo(gpt + house + 0.25, 12);
    expect(agentEnds().map((p) => [p.cost_source, p.price, p.price_from])).toEqual([
      ["priced", "gpt-5.5", "default"],
      ["priced", "house-model", "config"],
      ["reported", undefined, undefined],
    ]);
  });

  it("keeps an unknown model's cost at 0 and says so once per agent and model", async () => {
    const usage = { input_tokens: 10, output_tokens: 5 };
    sb.setup([
      {
        name: "a",
        turns: [
          { match: "PHASE-one", reply: reply("one"), usage },
          { match: "PHASE-two", reply: reply("two"), usage },
        ],
        extra: { model: "mystery-model" },
      },
    ]);
    writeWorkflow("unpriced", [
      { name: "one", owner: "a" },
      { name: "two", owner: "a" },
    ]);
    const result = await sb.run(["run", "unpriced", "go"]);
    expect(result.code).toBe(0);
    expect(adwIdFrom(result.stdout)).toMatch(/^[0-9a-f]{8}$/);
    const logs = sb
      .query<EventRow>("SELECT type, name, payload FROM events WHERE type = 'log' AND name LIKE 'no price%'")
      .map((row) => row.name);
    expect(logs).toEqual([
      "no price for model mystery-model: a's sends are recorded at $0 (exec reports no cost); name the model in agents[].model and price it under prices:",
    ]);
    expect(agentEnds().map((p) => p.cost_source)).toEqual(["unpriced", "unpriced"]);
    expect(sb.query("SELECT cost_usd FROM sessions")).toEqual([{ cost_usd: 0 }]);
  });
});
