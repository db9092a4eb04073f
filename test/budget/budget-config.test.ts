import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { costAt, DEFAULT_PRICES, lookupPrice } from "../../src/config/prices.js";
import { RunBudget } from "../../src/engine/budget.js";
import { ConfigError } from "../../src/errors/config-error.js";
import { loadConfig } from "../../src/library.js";
import { budgetArgs, claudeArgs } from "../../src/runtimes/claude-code/args.js";
import { createTempRepo, type TempRepo, writePrompts } from "../config/temp-repo.js";

let repo: TempRepo;
beforeEach(() => {
  repo = createTempRepo();
});
afterEach(() => repo.remove());

function problemsOf(yaml: string): string[] {
  repo.writeConfig(yaml);
  writePrompts(repo, ["a"]);
  try {
    loadConfig({ cwd: repo.root });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message
      .split("\n")
      .slice(1)
      .map((line) => line.trim());
  }
  throw new Error("expected a ConfigError");
}

describe("budget and price config", () => {
  it("resolves run limits, agent limits and prices (a missing cache price is the input price)", () => {
    repo.writeConfig(
      [
        "agents:",
        "  - name: a",
        "    limits: { max_cost_usd: 0.25, max_tokens: 5000, max_seconds: 90 }",
        "limits: { max_cost_usd: 2, max_tokens: 100000, max_run_seconds: 600 }",
        "prices:",
        "  my-model: { input: 1, output: 4 }",
        "  other: { input: 2, output: 8, cache_read: 0.2, cache_write: 2.5 }",
      ].join("\n"),
    );
    writePrompts(repo, ["a"]);
    const config = loadConfig({ cwd: repo.root });
    expect(config.limits).toMatchObject({ maxCostUsd: 2, maxTokens: 100_000, maxRunSeconds: 600 });
    expect(config.agents[0]?.limits).toEqual({ maxCostUsd: 0.25, maxTokens: 5000, maxSeconds: 90 });
    expect(config.prices).toEqual({
      "my-model": { input: 1, output: 4, cacheRead: 1, cacheWrite: 1 },
      other: { input: 2, output: 8, cacheRead: 0.2, cacheWrite: 2.5 },
    });
  });

  it("names the field of every bad budget or price (negative, zero, wrong type, unknown key)", () => {
    const problems = problemsOf(
      [
        "agents:",
        "  - name: a",
        '    limits: { max_cost_usd: -1, max_tokens: 1.5, max_seconds: "ten", max_turns: 3 }',
        'limits: { max_cost_usd: "0.5", max_tokens: -3, max_run_seconds: 0 }',
        "prices:",
        '  gpt-x: { input: -1, output: "2" }',
        "  gpt-y: { input: 1 }",
        "  gpt-z: 3",
      ].join("\n"),
    );
    expect(problems).toEqual([
      "agents[0].limits.max_cost_usd: expected more than 0, got -1",
      "agents[0].limits.max_tokens: expected an integer, got 1.5",
      'agents[0].limits.max_seconds: expected a number, got "ten"',
      'agents[0].limits.max_turns: unknown key (did you mean "max_tokens"?)',
      'limits.max_cost_usd: expected a number, got "0.5"',
      "limits.max_tokens: expected more than 0, got -3",
      "limits.max_run_seconds: expected more than 0, got 0",
      "prices.gpt-x.input: expected at least 0, got -1",
      'prices.gpt-x.output: expected a number, got "2"',
      "prices.gpt-y.output: required",
      "prices.gpt-z: expected a mapping, got 3",
    ]);
  });
});

describe("prices", () => {
  const usage = {
    inputTokens: 1000,
    outputTokens: 100,
    cacheReadTokens: 2000,
    cacheWriteTokens: 0,
    costUsd: 0,
  };

  it("ships a price for the default models of the runtimes that report no cost", () => {
    for (const model of ["gpt-5.5", "gemini-2.5-flash", "gemini-2.5-pro"])
      expect(DEFAULT_PRICES[model]?.input).toBeGreaterThan(0);
    expect(costAt(usage, DEFAULT_PRICES["gpt-5.5"]!)).toBeCloseTo(
      (1000 * 5 + 100 * 30 + 2000 * 0.5) / 1e6,
      12,
    );
  });

  it("prefers the config's price, matches provider/model by its model part, and knows no price for ''", () => {
    const mine = { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 };
    expect(lookupPrice("gpt-5.5", { "gpt-5.5": mine })).toEqual({
      key: "gpt-5.5",
      price: mine,
      source: "config",
    });
    expect(lookupPrice("openai/gpt-5.5", {})).toMatchObject({ key: "gpt-5.5", source: "default" });
    expect(lookupPrice("", { "": mine }).price).toBeNull();
    expect(lookupPrice("mystery-model", {}).price).toBeNull();
  });

  it("prices only usage with tokens and no cost; reported costs are kept", () => {
    const budget = new RunBudget({ limits: { jsonFixAttempts: 2, retries: 1, maxResultBytes: 1 } });
    expect(budget.price(usage, "gpt-5.5")).toMatchObject({ source: "priced", priceKey: "gpt-5.5" });
    expect(budget.price({ ...usage, costUsd: 0.5 }, "gpt-5.5")).toEqual({
      source: "reported",
      usage: { ...usage, costUsd: 0.5 },
    });
    expect(budget.price(usage, "mystery-model")).toEqual({ source: "unpriced", usage });
    expect(budget.firstUnpriced("a", "mystery-model")).toBe(true);
    expect(budget.firstUnpriced("a", "mystery-model")).toBe(false);
  });
});

describe("claude --max-budget-usd", () => {
  const base = {
    uuid: "0f8fad5b-d9cb-469f-a165-70867728950e",
    resume: false,
    model: "",
    thinking: "off" as const,
    tools: ["read"],
    systemPromptFile: "/tmp/system.md",
  };

  it("passes what the send may still spend, and nothing without a budget", () => {
    expect(claudeArgs({ ...base, maxBudgetUsd: 0.25 })).toContain("--max-budget-usd=0.25");
    expect(claudeArgs(base).some((arg) => arg.startsWith("--max-budget-usd"))).toBe(false);
    // Rounded up to a millionth: claude reads 0 as no cap at all.
    expect(budgetArgs(0.0000001)).toEqual(["--max-budget-usd=0.000001"]);
    expect(budgetArgs(0.1234561)).toEqual(["--max-budget-usd=0.123457"]);
    expect(budgetArgs(0)).toEqual([]);
  });
});
