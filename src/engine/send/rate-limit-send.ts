/**
 * Sends that survive rate limits and spent quotas. A send the runtime reports as `rate_limited` or
 * `usage_limit` is waited out (the provider's reset hint, else a doubling backoff) and sent again in
 * the same agent session, as long as the waits on the current entry stay within
 * `limits.rate_limit_wait_seconds` and the run's time budget; otherwise, and at once for a spent quota
 * without a near reset, the send moves to the agent's next `fallback` entry (a model of its runtime,
 * or another agent). Every wait is a `rate_limited` event, every move a `fallback` event, each with a
 * line on the terminal. With no entry left the last refusal is the send's result: the phase fails
 * with its error kind and reset time (docs/rate-limits.md).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_RATE_LIMIT_WAIT_MS, type FallbackEntry } from "../../config/config-types.js";
import type { AgentSendResult } from "../../runtimes/runtime.js";
import { formatDuration } from "../../util/format-duration.js";
import { SendMeter, sendLimits } from "../budget.js";
import type { CallContext } from "../call-context.js";
import { type HookedSend, sendThroughHooks } from "./send-pipeline.js";
import type { SendInput } from "./send-to-agent.js";

/** Where a call's sends go now: the index into [the agent itself, ...its fallback], and the waits spent there. */
export interface SendRoute {
  entry: number;
  waitedMs: number;
  waits: number;
}

/** The first wait when the provider gave no reset hint; it doubles with each wait on one entry. */
const FIRST_BACKOFF_MS = 2000;

const isLimit = (result: AgentSendResult): boolean =>
  !result.ok && (result.errorKind === "rate_limited" || result.errorKind === "usage_limit");

/** How long the result's hint says to wait (undefined: no hint). */
function hintMs(result: AgentSendResult): number | undefined {
  if (result.retryAfterMs !== undefined) return Math.max(0, result.retryAfterMs);
  if (result.resetsAt === undefined) return undefined;
  const at = new Date(result.resetsAt).getTime();
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** `model gpt-5-mini` / `agent backup` / the agent itself, for lines and events. */
function entryName(context: CallContext, entry: FallbackEntry | undefined): string {
  if (entry === undefined) {
    const { name, model } = context.agent.config;
    return model === "" ? name : `${name} (${model})`;
  }
  return "agent" in entry ? `agent ${entry.agent}` : `model ${entry.model}`;
}

/** The call's context on `entry`: the same agent with another model, or another agent in its own session. */
function contextOn(context: CallContext, entry: FallbackEntry): CallContext | null {
  if ("model" in entry) {
    return {
      ...context,
      agent: { ...context.agent, config: { ...context.agent.config, model: entry.model } },
    };
  }
  const other = context.run.agentContext?.(entry.agent);
  if (other === undefined) return null;
  const session = context.run.sessions.resolve(other.config, context.phase.row.id);
  return { run: context.run, agent: other, phase: { ...context.phase, session } };
}

/** The wait before sending again on the current entry, or null when the entry must be left. */
function plannedWait(context: CallContext, result: AgentSendResult, route: SendRoute): number | null {
  const hint = hintMs(result);
  // A spent quota with no reset time does not lift by waiting.
  if (result.errorKind === "usage_limit" && hint === undefined) return null;
  const wait = hint ?? FIRST_BACKOFF_MS * 2 ** route.waits;
  const bound = context.run.rateLimitWaitMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
  if (route.waitedMs + wait > bound) return null;
  const { run, agent, phase } = context;
  const limits = sendLimits(run.budget, agent.config, phase.row, phase.budget);
  const timeLeft = new SendMeter(run.budget, run.trace.session, phase.row, limits).msUntilTimeLimit();
  return timeLeft !== undefined && wait >= timeLeft ? null : wait;
}

/** The refusal's reset, for lines and events: `resets at …`, `retry after …`, or nothing. */
function resetNote(result: AgentSendResult): string {
  if (result.resetsAt !== undefined) return `resets at ${result.resetsAt}`;
  if (result.retryAfterMs !== undefined) return `retry after ${formatDuration(result.retryAfterMs)}`;
  return "no reset time given";
}

function limitPayload(result: AgentSendResult): Record<string, unknown> {
  return {
    error_kind: result.errorKind,
    ...(result.retryAfterMs === undefined ? {} : { retry_after_ms: result.retryAfterMs }),
    ...(result.resetsAt === undefined ? {} : { resets_at: result.resetsAt }),
    error: result.error,
  };
}

/** Traces one notice (`rate_limited` or `fallback`) and prints its line. */
function notice(
  context: CallContext,
  type: "rate_limited" | "fallback",
  line: string,
  payload: Record<string, unknown>,
): void {
  const { run, agent, phase } = context;
  run.trace.event({
    type,
    name: line,
    phaseId: phase.row.id,
    agent: agent.config.name,
    ok: false,
    payload: { ...payload, shown: [`! ${line}`] },
  });
  run.reporter.log(`! ${line}`, phase.row);
}

/** Waits `ms` unless the run is aborted first; true when the wait ran out. */
async function waitOut(context: CallContext, ms: number): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: context.run.signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * One send of the call through its hooks, on the route's current entry, waiting out and routing around
 * rate limits as the module says. `route` (kept in the call's progress) advances in place, so later
 * sends of the call stay on the entry that answered. Returns the send and the context it went through.
 */
export async function sendAroundLimits(
  context: CallContext,
  input: SendInput,
  route: SendRoute,
): Promise<HookedSend & { context: CallContext }> {
  const fallback = context.agent.config.fallback ?? [];
  let current = route.entry === 0 ? context : (contextOn(context, fallback[route.entry - 1]!) ?? context);
  for (;;) {
    const sent = await sendThroughHooks(current, input);
    const { result } = sent;
    if (!isLimit(result) || sent.failure !== null) return { ...sent, context: current };
    const here = entryName(context, fallback[route.entry - 1]);
    const what = result.errorKind === "usage_limit" ? "usage limit reached" : "rate limited";
    const wait = plannedWait(current, result, route);
    if (wait !== null) {
      const line = `${here}: ${what} (${resetNote(result)}); waiting ${formatDuration(wait)}, then sending again in the same session`;
      notice(current, "rate_limited", line, { ...limitPayload(result), wait_ms: wait, entry: here });
      if (!(await waitOut(current, wait))) {
        const error = `${result.error ?? what}; the run was aborted while waiting out the limit`;
        return { ...sent, result: { ...result, errorKind: "aborted", error }, context: current };
      }
      route.waitedMs += wait;
      route.waits += 1;
      continue;
    }
    const nextEntry = fallback[route.entry];
    const next = nextEntry === undefined ? null : contextOn(context, nextEntry);
    if (nextEntry === undefined || next === null) {
      const left = fallback.length === 0 ? "no fallback configured" : "every fallback tried";
      const error = `${result.error ?? what} (${resetNote(result)}; ${left})`;
      return { ...sent, result: { ...result, error }, context: current };
    }
    const to = entryName(context, nextEntry);
    const line = `${here}: ${what} (${resetNote(result)}); falling back to ${to}`;
    notice(current, "fallback", line, { ...limitPayload(result), from: here, to });
    route.entry += 1;
    route.waitedMs = 0;
    route.waits = 0;
    current = next;
  }
}
