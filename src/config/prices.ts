/**
 * Model prices: the `prices:` table of the config over the defaults sssf ships, and pricing a send's
 * usage when its runtime reports tokens but no cost (codex and gemini print no cost at all; opencode
 * prints 0 for a model without prices). A model nobody priced keeps cost 0: sssf never guesses.
 */
import type { Usage } from "../runtimes/runtime.js";

/** USD per million tokens of each kind. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const price = (input: number, output: number, cacheRead: number, cacheWrite = 0): ModelPrice => ({
  input,
  output,
  cacheRead,
  cacheWrite,
});

/**
 * Prices of the models the cost-less runtimes name as their defaults or in their docs (codex:
 * OpenAI's GPT-5 family; gemini: Gemini 2.5 and 3), in USD per million tokens, from the providers'
 * published list prices for standard requests (Gemini 2.5 Pro and 3 Pro at the ≤200k-token prompt
 * tier; OpenAI and Google charge nothing extra for writing their implicit caches). Models that are
 * not listed here are not priced until the config's `prices:` names them.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-5.5": price(5, 30, 0.5),
  "gpt-5.4": price(2.5, 15, 0.25),
  "gpt-5.4-mini": price(0.75, 4.5, 0.075),
  "gpt-5": price(1.25, 10, 0.125),
  "gpt-5-codex": price(1.25, 10, 0.125),
  "gpt-5-mini": price(0.25, 2, 0.025),
  "gemini-2.5-pro": price(1.25, 10, 0.125),
  "gemini-2.5-flash": price(0.3, 2.5, 0.03),
  "gemini-2.5-flash-lite": price(0.1, 0.4, 0.01),
  "gemini-3-pro-preview": price(2, 12, 0.2),
  "gemini-3-flash-preview": price(0.5, 3, 0.05),
};

/** Every token a usage counts: input, output, cache reads and cache writes. */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** A runtime that counted tokens but no cost: its usage needs a price. */
export function reportsNoCost(usage: Usage): boolean {
  return usage.costUsd === 0 && totalTokens(usage) > 0;
}

/** Where a model's price comes from, and the price (null: nobody priced it). */
export interface PriceLookup {
  /** The table key that matched (the model id, or its part after the last `/`). */
  key: string | null;
  price: ModelPrice | null;
  source: "config" | "default" | null;
}

/**
 * The price of `model`: the config's table first, then the shipped defaults, each by the exact id and
 * then by the part after the last `/` (opencode's `provider/model`, pi's `provider/model`). `""`
 * (the runtime's own default model) has no price. Never throws.
 */
export function lookupPrice(model: string, configured: Readonly<Record<string, ModelPrice>>): PriceLookup {
  if (model === "") return { key: null, price: null, source: null };
  const slash = model.lastIndexOf("/");
  const keys = slash >= 0 ? [model, model.slice(slash + 1)] : [model];
  for (const [table, source] of [
    [configured, "config"],
    [DEFAULT_PRICES, "default"],
  ] as const) {
    for (const key of keys) {
      const found = Object.hasOwn(table, key) ? table[key] : undefined;
      if (found) return { key, price: found, source };
    }
  }
  return { key: null, price: null, source: null };
}

/** The cost of `usage` at `price`, in USD. */
export function costAt(usage: Usage, price: ModelPrice): number {
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadTokens * price.cacheRead +
      usage.cacheWriteTokens * price.cacheWrite) /
    1_000_000
  );
}
