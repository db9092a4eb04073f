import type { SssfConfig } from "../config/config-types.js";
import type { EnvelopeOf, OutputType } from "../envelope/output-type.js";
import type { ChangesOutput, VerifyOutput } from "../envelope/schemas.js";
import type { Gate, PathChange } from "../gates/gate.js";

declare const finishedBrand: unique symbol;

/** What `run.finish()` returns; the only value a workflow's `run` may resolve to. */
export interface Finished {
  readonly [finishedBrand]: true;
  readonly accepted: boolean;
  readonly reason: string;
}

export interface FinishOptions {
  accepted: boolean;
  reason?: string;
}

export interface PhaseOptions {
  description: string;
}

/**
 * Budgets of one agent phase, over all its sends (corrections included). Each key set here overrides
 * the same key of the owner's `agents[].limits` for this phase; the run's `limits` apply regardless.
 */
export interface PhaseBudget {
  /** USD the phase's sends may cost. */
  maxCostUsd?: number;
  /** Tokens (input, output, cache reads and writes) the phase's sends may use. */
  maxTokens?: number;
  /** Seconds the phase may run, from its start. */
  maxSeconds?: number;
}

export interface AgentPhaseOptions extends PhaseOptions {
  /** The roster agent that owns this phase. */
  owner: string;
  /** Gate-violation corrections in the same session (default: `limits.retries`). */
  retries?: number;
  /**
   * This phase's budget, overriding the owner's `agents[].limits` key by key. An overrun aborts the
   * send (its process group is killed) and fails the phase with `PhaseFailedError`.
   */
  budget?: PhaseBudget;
  /**
   * Best-of-N (docs/reliability.md, "Best-of-N"): every `call` of the phase runs as N attempts side by
   * side, each in its own worktree from the same checkpoint and its own agent session; the engine
   * keeps the passing attempt with the fewest changed lines (then the lowest cost, then the earliest).
   */
  bestOf?: BestOfOptions;
}

/** How a phase's attempts run and are judged (`AgentPhaseOptions.bestOf`). */
export interface BestOfOptions {
  /** How many attempts (1 to `limits.max_best_of`). */
  attempts: number;
  /**
   * `"best"` (default): every attempt runs to its end and the winner rule picks among the passing
   * ones. `"first"`: the first attempt to pass wins and the others are stopped.
   */
  mode?: "best" | "first";
  /**
   * A code check of an attempt whose envelope is valid and whose gates pass, run in the attempt's
   * worktree; `ok: false` makes it lose. The built-in build workflows run their quality suites here.
   */
  check?: (attempt: BestOfAttempt) => Promise<BestOfCheckResult>;
}

/** One passing attempt, as `BestOfOptions.check` sees it. */
export interface BestOfAttempt {
  /** 1-based. */
  attempt: number;
  /** The attempt's own worktree (its changes, nobody else's). */
  root: string;
  /** Its accepted envelope. */
  envelope: object;
  /** Lines added plus deleted against the checkpoint. */
  changedLines: number;
  files: readonly string[];
  /** Runs a quality suite of the config in the attempt's worktree: passed, and its last output lines. */
  runSuite(suite: string): Promise<{ passed: boolean; summary: string }>;
}

/** What a best-of check says of an attempt. */
export interface BestOfCheckResult {
  ok: boolean;
  /** One line: why (shown in the trace, `sssf phases` and the failure message). */
  summary: string;
}

export interface CodePhaseOptions extends PhaseOptions {
  /** What does the work (`git`, `quality`, a tool name); shown in the trace's code lane. */
  owner?: string;
}

/** How the agent writes its final answer: a JSON object (default) or the Markdown result contract. */
export type ContractFormat = "json" | "markdown";

export interface CallOptions<T extends OutputType> {
  outputType: T;
  prompt: string;
  /**
   * `"markdown"`: the agent answers with the Markdown result contract (`## … Complete`, `**Status**`,
   * `### Summary` …), parsed into `outputType` (which must be `MarkdownResult` or extend it); the
   * `## Report` section shown to the agent uses that format. Default `"json"`.
   */
  format?: ContractFormat;
  /**
   * The upstream envelope injected as `{{previous_envelope}}`. Defaults to the run's last accepted
   * envelope; pass `null` to inject none.
   */
  previous?: object | null;
  gates?: Gate<EnvelopeOf<T>>[];
  /**
   * A user prompt template used instead of the agent's `user.md` (same placeholders; the call's
   * `## Report` is appended when it has none). For a request that is not the agent's own task.
   */
  userTemplate?: string;
}

interface PhaseBase {
  readonly name: string;
  readonly number: number;
  /** Adds a `log` event to this phase. */
  log(message: string, details?: Record<string, unknown>): void;
}

/** The engineer's answer to `ask`. */
export interface EngineerAnswer {
  approved: boolean;
  /** Why (required for a rejection; may be empty for an approval). */
  reason: string;
  /** Who answered: `user@host` of `sssf approve`/`reject`, or `--yes` when pre-approved. */
  by: string;
  /** ISO time of the answer. */
  at: string;
}

export interface EngineerPhase extends PhaseBase {
  /**
   * Asks the engineer and waits: `sssf approve <adw_id>` or `sssf reject <adw_id> --reason …` answers
   * from another terminal (`--yes` on the run pre-approves). The wait, the answer and who gave it are
   * traced. Rejects with SssfError("interrupted") when the run is interrupted while waiting.
   */
  ask(question: string, details?: Record<string, unknown>): Promise<EngineerAnswer>;
}

/** The handle of an agent phase: the only place `call` exists. */
export interface AgentPhase extends PhaseBase {
  readonly owner: string;
  /**
   * Sends the prompt to the owner agent and returns its validated envelope, after same-session JSON
   * corrections and gate corrections. Throws `PhaseFailedError` when the phase cannot succeed.
   */
  call<T extends OutputType>(options: CallOptions<T>): Promise<EnvelopeOf<T>>;
}

/** A commit a code phase made. */
export interface CommitResult {
  /** The new commit id. */
  commit: string;
  message: string;
  /** Exactly the paths the commit holds. */
  files: PathChange[];
}

/** How a quality suite ends at the run's base commit (`CodePhase.suiteBaseline`); snake_case: it is journaled and cached. */
export interface SuiteBaseline {
  suite: string;
  command: string[];
  /** The base commit the suite ran at: the session's `base_ref`, or HEAD for an in-place run. */
  commit: string;
  passed: boolean;
  exit_code: number | null;
  duration_ms: number;
  /** The last lines of its output, redacted. */
  output_tail: string;
  /** Its whole output (redacted, bounded) beside the cache entry, or null when it could not be written. */
  log_path: string | null;
  /** Answered from `<data_dir>/baselines/<commit>/<suite>.json` without running the suite again. */
  cached: boolean;
  /** Per-test counts at the base (the suite's `report:`), or null/absent without a readable report. */
  tests?: { total: number; passed: number; failed: number; skipped: number } | null;
  /** Every test failing at the base (file + name), or null/absent without a readable report. */
  failed_tests?: { name: string; file: string | null }[] | null;
}

/** Options of `CodePhase.runSuite`. */
export interface RunSuiteOptions {
  /**
   * With a per-test report, compare a failing run with the suite at the base commit (running it
   * there once, cached) so failures that were already there are told apart (default true; a suite's
   * `baseline: false` turns it off). False where failures are the run's to fix whatever the base says.
   */
  baseline?: boolean;
}

export interface CodePhase extends PhaseBase {
  /**
   * Runs a quality suite from the config and returns its result as a `VerifyOutput` envelope; the
   * whole output is saved in the session (`log_path`).
   */
  runSuite(name: string, options?: RunSuiteOptions): Promise<EnvelopeOf<typeof VerifyOutput>>;
  /**
   * Runs the quality suite at the run's base commit, in a throwaway detached worktree with the
   * checkout's dependency folders linked, and says how it ended there: did the suite already fail
   * before the run changed anything? Cached per (suite, command, commit) in the data dir, so a second
   * run at the same commit does not run it again. Traced as a `log` event; never hands anything off.
   * Resolves to null when there is no base commit (outside git, a repository without commits);
   * rejects with a GitError when git cannot add the worktree.
   */
  suiteBaseline(name: string): Promise<SuiteBaseline | null>;
  /** Hands a code result to later agents through the envelope door (it becomes `previous`). */
  handOff<T extends OutputType>(outputType: T, envelope: EnvelopeOf<T>): EnvelopeOf<T>;
  /**
   * Captures what the run changed since its start or its last commit as a `ChangesOutput` (the full
   * diff saved under the session's `changes/`), and hands it off like `handOff`.
   */
  captureChanges(): Promise<EnvelopeOf<typeof ChangesOutput>>;
  /**
   * Commits exactly the run's own changes since its start or its last commit (never the operator's
   * other uncommitted work, staged or not), with `message` redacted (`redactSecrets`: a message built
   * from an agent's summary may hold a secret, which git's history would keep). Resolves to null when
   * there is nothing to commit.
   */
  commit(message: string): Promise<CommitResult | null>;
}

/** What a workflow's `run` receives. */
export interface Run {
  readonly adwId: string;
  readonly workflow: string;
  /** The engineer's request. */
  readonly request: string;
  /** The working tree agents and code phases act on: the run's worktree, or the checkout with `--in-place`. */
  readonly repoRoot: string;
  /** The operator's checkout the run was started from (equal to `repoRoot` in place). */
  readonly checkoutRoot: string;
  readonly contextHandoffDir: string;
  readonly config: SssfConfig;
  /** `--agent` from the command line, when given. */
  readonly agentOverride: string | undefined;
  /** `--best-of N` from the command line, for the workflow's `bestOf` phase; undefined without it. */
  readonly bestOf: number | undefined;
  engineer<R>(
    name: string,
    options: PhaseOptions,
    body: (phase: EngineerPhase) => R | Promise<R>,
  ): Promise<R>;
  agent<R>(name: string, options: AgentPhaseOptions, body: (phase: AgentPhase) => Promise<R>): Promise<R>;
  code<R>(name: string, options: CodePhaseOptions, body: (phase: CodePhase) => R | Promise<R>): Promise<R>;
  /**
   * Runs independent branches concurrently (fan-out) and resolves when all have settled (join), with
   * their results in order; rejects with the first branch's error after every branch has settled.
   * Each branch's phases get their own numbers and overlap in the trace. Agents running at the same
   * time must own different agents (one session cannot take two sends at once); their write boundaries
   * see each other, so one agent's writes inside a sibling's `writes` are the sibling's, not a breach.
   */
  parallel<T extends readonly (() => Promise<unknown>)[]>(
    branches: T,
  ): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }>;
  /** Decides the exit code, the session status and the final banner together. */
  finish(options: FinishOptions): Finished;
}

export interface Workflow {
  name: string;
  description: string;
  /** Roster agents the workflow needs; checked before anything starts. */
  agents: readonly string[];
  /**
   * Quality suites (`quality:` in the config) the workflow runs; a missing one is a config error before
   * anything starts. `"*"` means "every configured suite, at least one".
   */
  suites?: readonly string[];
  /** Phase names in order, for `sssf list` (loops may repeat some). */
  phases?: readonly string[];
  /**
   * The phase `sssf run … --best-of N` applies to (the main building phase: `build`); a workflow
   * without it refuses `--best-of`. The workflow reads N from `run.bestOf`.
   */
  bestOf?: string;
  run(run: Run, request: string): Promise<Finished>;
}

/**
 * Declares a workflow (ADW). It names agents, never models, sequences phases and decides acceptance.
 *
 * @example
 * export default defineWorkflow({
 *   name: "ask", description: "One agent answers", agents: ["assistant"],
 *   async run(run, request) {
 *     const answer = await run.agent("answer", { owner: "assistant", description: "Answer" },
 *       (phase) => phase.call({ outputType: GenericOutput, prompt: request }));
 *     return run.finish({ accepted: true, reason: answer.summary });
 *   },
 * });
 */
export function defineWorkflow(workflow: Workflow): Workflow {
  return workflow;
}
