/**
 * Best-of-N (docs/reliability.md, "Best-of-N"): an agent phase's call runs as N attempts side by side,
 * each in its own worktree detached at a checkpoint of the run's worktree and in its own agent session.
 * Code picks the winner: a valid envelope, passing gates and the workflow's check make a candidate;
 * the fewest changed lines, then the lowest cost, then the earliest wins (mode "first": the first to
 * pass, the others stopped). The winner's diff is applied to the run's worktree and its envelope is
 * the call's; every attempt is traced and its diff kept in the session; the attempts' worktrees are
 * removed when the call ends, whatever happened. Each finished attempt is journaled (op `attempt`), so
 * a resume keeps it and runs only the others.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import type { FinishedAttempt } from "../../api/durable-steps.js";
import type { BestOfOptions, CallOptions } from "../../api/run-api.js";
import { checkpointRef, takeWorkCheckpoint } from "../../code/work-checkpoint.js";
import { DEFAULT_MAX_BEST_OF } from "../../config/config-types.js";
import type { EnvelopeOf, OutputType } from "../../envelope/output-type.js";
import { PhaseFailedError } from "../../errors/phase-failed-error.js";
import { SssfError } from "../../errors/sssf-error.js";
import { UsageError } from "../../errors/usage-error.js";
import { readAgentMap, updateAgentMap } from "../../session/agent-map.js";
import { redactJsonValue } from "../../util/secrets/redact-json.js";
import { applyAttemptDiff, removeAttemptWorktree } from "../../workspace/attempt-worktree.js";
import { repoOf } from "../../workspace/worktree.js";
import { prepareCall } from "../call-agent.js";
import type { CallContext } from "../call-context.js";
import type { RunCheckpoints } from "../phase/phase-checkpoints.js";
import { type BestOfTold, traceAttempt, traceChoice } from "./attempt-trace.js";
import { type Choice, type Contender, chooseWinner, lossReason } from "./choose-winner.js";
import { type AttemptPlan, type AttemptResult, runAttempt, sharedProgress } from "./run-attempt.js";

/** What a best-of call needs of the run besides the phase's own call context. */
export interface BestOfHost {
  /** The phase's call context in the run's worktree. */
  base: CallContext;
  adwId: string;
  /** Where the run's checkpoints are taken; null in place (refused). */
  place: RunCheckpoints | null;
  checkoutRoot: string;
  sessionRoot: string;
  /** The session's `agent_map.json`: the agent's entry is put back after the attempts. */
  agentMapFile: string;
  /** `limits.max_best_of`. */
  maxBestOf: number | undefined;
  contextOf: AttemptPlan<OutputType>["contextOf"];
  runSuite: AttemptPlan<OutputType>["runSuite"];
}

/** Refuses an attempt count outside 1…`limits.max_best_of`, naming where it came from. */
export function checkBestOfCount(attempts: number, max: number | undefined, where: string): void {
  const cap = max ?? DEFAULT_MAX_BEST_OF;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > cap)
    throw new UsageError(
      `${where}: ${attempts} attempts is outside 1…${cap} (limits.max_best_of${max === undefined ? ", default" : ""} ${cap})`,
      where,
    );
}

/** Runs the call of `options` as `bestOf.attempts` attempts and returns the winner's envelope. */
export function callBestOf<T extends OutputType>(
  host: BestOfHost,
  bestOf: BestOfOptions,
  options: CallOptions<T>,
): Promise<EnvelopeOf<T>> {
  const { base } = host;
  const phase = base.phase.row.name;
  checkBestOfCount(bestOf.attempts, host.maxBestOf, `phase ${phase}: bestOf.attempts`);
  const place = host.place;
  if (place === null)
    throw new UsageError(
      `phase ${phase}: best-of runs attempts in worktrees of the run's own worktree; an --in-place run has none`,
      "--in-place",
    );
  const prepared = prepareCall(base, options);
  const mode = bestOf.mode ?? "best";
  const call = createHash("sha256")
    .update(prepared.rendered.system)
    .update("\u0000")
    .update(prepared.rendered.user)
    .digest("hex");
  const inputs = { ...prepared.inputs, best_of: { attempts: bestOf.attempts, mode } };
  return base.phase.durable.step("call", inputs, async () => {
    const repo = await repoOf(place.top);
    if (repo === null) throw new UsageError(`phase ${phase}: best-of needs a git repository at ${place.top}`);
    const checkpoint = await takeWorkCheckpoint(place.top, {
      ref: checkpointRef(host.adwId),
      exclude: place.exclude,
      message: `sssf ${host.adwId}: checkpoint before the attempts of ${phase}`,
    });
    const number = String(base.phase.row.number).padStart(2, "0");
    const parent = `${place.top}.attempts`;
    const counter = { n: 0 };
    const plan: AttemptPlan<T> = {
      call,
      trace: base.run.trace,
      options,
      prepared,
      bestOf,
      repo,
      checkoutTop: host.checkoutRoot,
      checkpoint: checkpoint.commit,
      exclude: place.exclude.map((entry) => path.relative(place.top, entry)),
      sessionRoot: host.sessionRoot,
      diffName: (k) => `attempts/${number}-${phase}-${k}.diff`,
      // Named by the phase, not its number: a resume renumbers the phase and must find a crash's leftovers.
      worktreeOf: (k) => path.join(parent, `${phase}-attempt-${k}`),
      contextOf: host.contextOf,
      runSuite: host.runSuite,
      progress: () => sharedProgress(counter),
    };
    // A ladder climbing inside an attempt records its session under the agent's own name.
    const agentName = base.agent.config.name;
    const entry = readAgentMap(host.agentMapFile)[agentName];
    try {
      return await runAttempts(host, plan, mode);
    } finally {
      if (entry !== undefined) updateAgentMap(host.agentMapFile, agentName, entry);
      // Every attempt of this phase, a crashed attempt's with a larger N included.
      const mine = new RegExp(`^${phase.replace(/[^\w-]/g, "\\$&")}-attempt-\\d+$`);
      const names = existsSync(parent) ? readdirSync(parent).filter((name) => mine.test(name)) : [];
      for (const name of names) await removeAttemptWorktree(repo, path.join(parent, name));
      removeIfEmpty(parent);
    }
  });
}

function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // Gone already, or something else lives there: left alone.
  }
}

/** The attempts a crashed attempt of the run finished, journaled again so a second crash keeps them. */
async function keptAttempts<T extends OutputType>(
  host: BestOfHost,
  plan: AttemptPlan<T>,
  of: number,
): Promise<Map<number, AttemptResult>> {
  const kept = new Map<number, AttemptResult>();
  for (const entry of host.base.phase.durable.rerun?.attempts ?? []) {
    if (entry.call !== plan.call || entry.attempt > of) continue;
    if (!existsSync(path.join(plan.sessionRoot, entry.diff))) continue;
    kept.set(entry.attempt, { ...entry, status: entry.passed ? "passed" : "failed" });
  }
  for (const entry of kept.values())
    await host.base.phase.durable.step(
      "attempt",
      { call: plan.call, attempt: entry.attempt },
      async () => entry,
    );
  if (kept.size > 0) {
    const { run, agent, phase } = host.base;
    const numbers = [...kept.keys()].sort((a, b) => a - b);
    const line = `! ${agent.config.name}: resumes best of ${of} with attempt(s) ${numbers.join(", ")} kept from before the crash`;
    run.trace.event({
      type: "log",
      name: line.slice(2),
      phaseId: phase.row.id,
      agent: agent.config.name,
      payload: { kept: numbers, shown: [line] },
    });
    run.reporter.log(line, phase.row);
  }
  return kept;
}

/** An attempt that never ran: mode "first" had a winner before it started. */
function notRun(plan: AttemptPlan<OutputType>, k: number): AttemptResult {
  const now = new Date().toISOString();
  return {
    call: plan.call,
    attempt: k,
    status: "stopped",
    passed: false,
    reason: "stopped: another attempt passed first",
    changed_lines: 0,
    files: [],
    cost_usd: 0,
    input_tokens: 0,
    output_tokens: 0,
    agent_session_id: "",
    envelope_ids: [],
    gates: [],
    check: null,
    diff: "",
    envelope: null,
    started_at: now,
    ended_at: now,
  };
}

/** Runs every attempt not kept, then judges, traces and applies the winner. */
async function runAttempts<T extends OutputType>(
  host: BestOfHost,
  plan: AttemptPlan<T>,
  mode: "best" | "first",
): Promise<EnvelopeOf<T>> {
  const { base } = host;
  const of = plan.bestOf.attempts;
  const runSignal = base.run.signal;
  const results = await keptAttempts(host, plan, of);
  let first = mode === "first" ? ([...results.values()].find((r) => r.passed)?.attempt ?? null) : null;
  const pending = Array.from({ length: of }, (_, i) => i + 1).filter((k) => !results.has(k));
  const controllers = new Map(pending.map((k) => [k, new AbortController()]));
  const stopOthers = (k: number, why: string) => {
    for (const [other, controller] of controllers) if (other !== k) controller.abort(why);
  };
  if (first !== null) for (const k of pending) results.set(k, notRun(plan as AttemptPlan<OutputType>, k));
  const settled = await Promise.allSettled(
    (first === null ? pending : []).map(async (k) => {
      const own = controllers.get(k)?.signal ?? new AbortController().signal;
      const result = await runAttempt(plan, k, AbortSignal.any([runSignal, own]), runSignal);
      results.set(k, result);
      if (result.status !== "stopped") {
        const { acceptedRow: _row, budget: _budget, ...journaled } = result;
        await base.phase.durable.step("attempt", { call: plan.call, attempt: k }, async () => ({
          ...journaled,
          accepted_row: result.acceptedRow ?? null,
        }));
      }
      if (result.budget !== undefined) stopOthers(k, "budget");
      if (mode === "first" && result.passed && first === null) {
        first = k;
        stopOthers(k, "first");
      }
    }),
  );
  const crashed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (runSignal.aborted)
    throw new SssfError("interrupted", `run interrupted (${String(runSignal.reason ?? "signal")})`);
  if (crashed !== undefined) throw crashed.reason;
  const all = Array.from({ length: of }, (_, i) => results.get(i + 1) as AttemptResult);
  const told: BestOfTold = {
    trace: base.run.trace,
    reporter: base.run.reporter,
    row: base.phase.row,
    agent: base.agent.config.name,
    of,
    mode,
  };
  const budget = all.find((r) => r.budget !== undefined)?.budget;
  const choice: Choice =
    budget !== undefined
      ? { winner: null, reason: budget }
      : first !== null
        ? { winner: first, reason: `the first to pass (mode "first"); the others were stopped` }
        : chooseWinner(all.map(contender));
  const winner = choice.winner === null ? undefined : all[choice.winner - 1];
  for (const result of all) traceAttempt(told, result, verdict(result, winner, mode, choice.reason));
  traceChoice(told, choice.winner, choice.reason);
  if (budget !== undefined) throw new PhaseFailedError(base.phase.row.name, budget);
  if (winner === undefined || winner.envelope === null)
    throw new PhaseFailedError(
      base.phase.row.name,
      `no attempt of ${of} passed (${all.map((r) => `attempt ${r.attempt}: ${r.reason}`).join(" | ")})`,
    );
  await adopt(host, plan.sessionRoot, winner);
  return winner.envelope as EnvelopeOf<T>;
}

function contender(result: AttemptResult): Contender {
  return {
    attempt: result.attempt,
    passed: result.passed,
    changedLines: result.changed_lines,
    costUsd: result.cost_usd,
  };
}

/** Whether `result` won, and why it won, lost, failed or was stopped. */
function verdict(
  result: AttemptResult,
  winner: AttemptResult | undefined,
  mode: "best" | "first",
  why: string,
): { winner: boolean; reason: string } {
  if (winner === undefined || !result.passed) return { winner: false, reason: result.reason };
  if (result.attempt === winner.attempt) return { winner: true, reason: `won: ${why}` };
  if (mode === "first")
    return { winner: false, reason: `passed, but attempt ${winner.attempt} passed first` };
  return { winner: false, reason: lossReason(contender(result), contender(winner)) };
}

/** The winner's changes become the run's, and its envelope the phase's accepted one. */
async function adopt(host: BestOfHost, sessionRoot: string, winner: AttemptResult): Promise<void> {
  const { base, place } = host;
  if (place !== null && winner.files.length > 0) {
    try {
      await applyAttemptDiff(place.top, path.join(sessionRoot, winner.diff));
    } catch (error) {
      throw new PhaseFailedError(
        base.phase.row.name,
        `attempt ${winner.attempt} won, but its changes do not apply to the run's worktree (${(error as Error).message}); its diff is ${winner.diff} in the session`,
      );
    }
  }
  const row =
    winner.acceptedRow ??
    (winner as FinishedAttempt & { accepted_row?: AttemptResult["acceptedRow"] }).accepted_row;
  if (row) base.run.trace.acceptEnvelope(row);
  // The file is a record: secrets redacted.
  base.run.files.write(
    base.agent.dirs.envelope,
    `${JSON.stringify(redactJsonValue(winner.envelope), null, 2)}\n`,
  );
}
