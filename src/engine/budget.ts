/**
 * Budgets (cost, tokens, time) of a run and of its agent phases, and the prices that make a cost of
 * runtimes that report none. Three sources: the run's `limits.max_cost_usd|max_tokens|max_run_seconds`
 * (the session's totals, and this `sssf run`'s clock), the owner's `agents[].limits` (each phase it
 * owns), and a phase's own `budget` (which overrides the agent's key by key). `SendMeter` measures
 * one send against all of them: before it starts, while it streams usage, on a timer, and after it.
 */
import type { PhaseBudget } from "../api/run-api.js";
import type { LimitsConfig, SssfConfig } from "../config/config-types.js";
import { costAt, lookupPrice, type ModelPrice, reportsNoCost, totalTokens } from "../config/prices.js";
import { UsageError } from "../errors/usage-error.js";
import { addUsage, emptyUsage, type Usage } from "../runtimes/runtime.js";
import type { PhaseRow, SessionRow } from "../trace/events.js";

/** Where a send's cost comes from: its runtime, the price table, or nowhere (no price known). */
export type CostSource = "reported" | "priced" | "unpriced";

/** A send's usage with its cost filled in where a price is known. */
export interface PricedUsage {
  usage: Usage;
  source: CostSource;
  /** The price table key used (`priced` only). */
  priceKey?: string;
  /** Whether the key came from the config's `prices:` or sssf's defaults (`priced` only). */
  priceFrom?: "config" | "default";
}

/** What a budget measures. */
type Measure = "cost" | "tokens" | "seconds";

/** One limit a send is held to. */
export interface BudgetLimit {
  /** Whose budget: the run, the owner agent's per-phase limits, or the phase's own. */
  scope: "run" | "agent" | "phase";
  /** `run`, `agent builder`, `phase build`: the start of the reason. */
  owner: string;
  /** The key as written where it was set: `max_cost_usd`, `budget.maxCostUsd`… */
  key: string;
  measure: Measure;
  limit: number;
}

/** A limit reached, with what was spent. */
export interface BudgetOverrun {
  limit: BudgetLimit;
  spent: number;
  /** `budget exceeded: run max_cost_usd 0.50 — spent 0.53`. */
  reason: string;
}

/** The run's side of every budget: its limits, its clock, the prices, and what was said once. */
export class RunBudget {
  readonly limits: Pick<LimitsConfig, "maxCostUsd" | "maxTokens" | "maxRunSeconds">;
  /** When this `sssf run` started (ms since the epoch): `max_run_seconds` counts from here. */
  readonly startedAt: number;
  private readonly prices: Readonly<Record<string, ModelPrice>>;
  private readonly unpricedSaid = new Set<string>();

  constructor(config: Pick<SssfConfig, "limits" | "prices">, startedAt = Date.now()) {
    this.limits = {
      maxCostUsd: config.limits.maxCostUsd,
      maxTokens: config.limits.maxTokens,
      maxRunSeconds: config.limits.maxRunSeconds,
    };
    this.prices = config.prices ?? {};
    this.startedAt = startedAt;
  }

  /**
   * `usage` with a cost: as reported when the runtime gave one (or counted no tokens), else from the
   * price of `model`, else 0 (`unpriced`). Never throws.
   */
  price(usage: Usage, model: string): PricedUsage {
    if (!reportsNoCost(usage)) return { usage, source: "reported" };
    const found = lookupPrice(model, this.prices);
    if (found.price === null || found.key === null || found.source === null)
      return { usage, source: "unpriced" };
    return {
      usage: { ...usage, costUsd: costAt(usage, found.price) },
      source: "priced",
      priceKey: found.key,
      priceFrom: found.source,
    };
  }

  /** True the first time an agent's model turns out unpriced in this run (say it once, then not). */
  firstUnpriced(agent: string, model: string): boolean {
    const key = `${agent}\u0000${model}`;
    if (this.unpricedSaid.has(key)) return false;
    this.unpricedSaid.add(key);
    return true;
  }
}

const MEASURE_OF: Record<keyof PhaseBudget, Measure> = {
  maxCostUsd: "cost",
  maxTokens: "tokens",
  maxSeconds: "seconds",
};
const AGENT_KEY: Record<keyof PhaseBudget, string> = {
  maxCostUsd: "max_cost_usd",
  maxTokens: "max_tokens",
  maxSeconds: "max_seconds",
};

/** A workflow's phase budget, checked: each given value a positive finite number. */
function checkedPhaseBudget(phase: string, budget: PhaseBudget | undefined): PhaseBudget {
  if (budget === undefined) return {};
  if (typeof budget !== "object" || budget === null)
    throw new UsageError(`phase ${phase}: budget must be an object { maxCostUsd?, maxTokens?, maxSeconds? }`);
  for (const [key, value] of Object.entries(budget)) {
    if (!Object.hasOwn(MEASURE_OF, key))
      throw new UsageError(
        `phase ${phase}: budget.${key} is not a budget (use maxCostUsd, maxTokens or maxSeconds)`,
      );
    if (value === undefined) continue;
    const integer = key === "maxTokens";
    if (
      typeof value !== "number" ||
      !Number.isFinite(value) ||
      value <= 0 ||
      (integer && !Number.isInteger(value))
    )
      throw new UsageError(
        `phase ${phase}: budget.${key} must be a positive ${integer ? "integer" : "number"}, got ${JSON.stringify(value)}`,
      );
  }
  return budget;
}

/** Every limit one send of `agent` in phase `row` is held to: the run's, then the phase's. */
export function sendLimits(
  run: RunBudget,
  agent: { name: string; limits?: { [K in keyof PhaseBudget]?: number | undefined } | undefined },
  row: PhaseRow,
  phaseBudget: PhaseBudget | undefined,
): BudgetLimit[] {
  const limits: BudgetLimit[] = [];
  const runLimit = (key: string, measure: Measure, limit: number | undefined) => {
    if (limit !== undefined) limits.push({ scope: "run", owner: "run", key, measure, limit });
  };
  runLimit("max_cost_usd", "cost", run.limits.maxCostUsd);
  runLimit("max_tokens", "tokens", run.limits.maxTokens);
  runLimit("max_run_seconds", "seconds", run.limits.maxRunSeconds);
  const own = checkedPhaseBudget(row.name, phaseBudget);
  for (const key of Object.keys(MEASURE_OF) as (keyof PhaseBudget)[]) {
    const measure = MEASURE_OF[key];
    const fromPhase = own[key];
    const fromAgent = agent.limits?.[key];
    if (fromPhase !== undefined)
      limits.push({
        scope: "phase",
        owner: `phase ${row.name}`,
        key: `budget.${key}`,
        measure,
        limit: fromPhase,
      });
    else if (fromAgent !== undefined)
      limits.push({
        scope: "agent",
        owner: `agent ${agent.name}`,
        key: AGENT_KEY[key],
        measure,
        limit: fromAgent,
      });
  }
  return limits;
}

/** The fewest decimals (2, 4 or 6) that tell `limit` and `spent` apart; 2 when nothing does. */
function decimals(limit: number, spent: number): number {
  for (const places of [2, 4, 6]) if (limit.toFixed(places) !== spent.toFixed(places)) return places;
  return 2;
}

/** `budget exceeded: run max_cost_usd 0.50 — spent 0.53` (seconds: `— ran 61.2 s`). */
export function overrunReason(limit: BudgetLimit, spent: number, before: boolean): string {
  const head = `budget ${before ? "exhausted" : "exceeded"}: ${limit.owner} ${limit.key}`;
  if (limit.measure === "tokens") return `${head} ${limit.limit} — spent ${spent}`;
  if (limit.measure === "seconds") return `${head} ${limit.limit} — ran ${spent.toFixed(1)} s`;
  const places = decimals(limit.limit, spent);
  return `${head} ${limit.limit.toFixed(places)} — spent ${spent.toFixed(places)}`;
}

function usageOf(row: SessionRow | PhaseRow): Usage {
  return {
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    costUsd: row.cost_usd,
  };
}

/**
 * One send measured against its limits. The session's and the phase's rows hold what earlier sends
 * spent; `add` counts what this send streams until its final usage is recorded (`settle`).
 */
export class SendMeter {
  readonly limits: readonly BudgetLimit[];
  private readonly run: RunBudget;
  private readonly session: SessionRow;
  private readonly row: PhaseRow;
  private streamed = emptyUsage();

  constructor(run: RunBudget, session: SessionRow, row: PhaseRow, limits: readonly BudgetLimit[]) {
    this.run = run;
    this.session = session;
    this.row = row;
    this.limits = limits;
  }

  /** Counts usage this send reported while it runs (already priced). */
  add(usage: Usage): void {
    addUsage(this.streamed, usage);
  }

  /** The send's final usage is in the rows now: stop counting the streamed part twice. */
  settle(): void {
    this.streamed = emptyUsage();
  }

  private spent(limit: BudgetLimit, now: number): number {
    if (limit.measure === "seconds") {
      const since = limit.scope === "run" ? this.run.startedAt : Date.parse(this.row.started_at);
      return Math.max(0, now - since) / 1000;
    }
    const usage = addUsage(usageOf(limit.scope === "run" ? this.session : this.row), this.streamed);
    return limit.measure === "cost" ? usage.costUsd : totalTokens(usage);
  }

  /**
   * The first limit reached, or null. `before` a send nothing may be left (spent ≥ limit fails);
   * during and after one, cost and tokens fail once above their limit, time once it is reached.
   */
  check(before: boolean, now = Date.now()): BudgetOverrun | null {
    for (const limit of this.limits) {
      const spent = this.spent(limit, now);
      const over = before || limit.measure === "seconds" ? spent >= limit.limit : spent > limit.limit;
      if (over) return { limit, spent, reason: overrunReason(limit, spent, before) };
    }
    return null;
  }

  /** USD left before the tightest cost limit (undefined: no cost limit). */
  remainingUsd(now = Date.now()): number | undefined {
    let left: number | undefined;
    for (const limit of this.limits) {
      if (limit.measure !== "cost") continue;
      const rest = limit.limit - this.spent(limit, now);
      left = left === undefined ? rest : Math.min(left, rest);
    }
    return left;
  }

  /** Milliseconds until the nearest time limit is reached (undefined: no time limit). */
  msUntilTimeLimit(now = Date.now()): number | undefined {
    let soonest: number | undefined;
    for (const limit of this.limits) {
      if (limit.measure !== "seconds") continue;
      const rest = limit.limit * 1000 - this.spent(limit, now) * 1000;
      soonest = soonest === undefined ? rest : Math.min(soonest, rest);
    }
    return soonest === undefined ? undefined : Math.max(0, soonest);
  }
}

/** The trace payload of an overrun: which budget, its limit and what was spent. */
export function overrunPayload(overrun: BudgetOverrun): Record<string, unknown> {
  const { limit } = overrun;
  return {
    budget: limit.scope,
    key: limit.key,
    owner: limit.owner,
    measure: limit.measure,
    limit: limit.limit,
    spent: overrun.spent,
    unit: limit.measure === "cost" ? "usd" : limit.measure,
  };
}
