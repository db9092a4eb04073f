/**
 * The phases the built-in workflows are made of. Sequencing only: every decision a step takes is a
 * bound (`maxFixes`, `maxRevisions`) or a fact (a suite's exit code, a review's `approved`).
 */

import type { CommitResult, Run, SuiteBaseline } from "../api/run-api.js";
import type { EnvelopeOf } from "../envelope/output-type.js";
import {
  BuildOutput,
  type ChangesOutput,
  DocumentOutput,
  PlanOutput,
  ReviewOutput,
  ScoutOutput,
  type VerifyOutput,
} from "../envelope/schemas.js";
import { gates } from "../gates/index.js";
import { bestOfBuild } from "./best-of-build.js";

export type Plan = EnvelopeOf<typeof PlanOutput>;
export type Build = EnvelopeOf<typeof BuildOutput>;
export type Review = EnvelopeOf<typeof ReviewOutput>;
export type Verify = EnvelopeOf<typeof VerifyOutput>;
export type Changes = EnvelopeOf<typeof ChangesOutput>;
export type Scout = EnvelopeOf<typeof ScoutOutput>;
export type Document = EnvelopeOf<typeof DocumentOutput>;

/** Fix rounds after a failing suite, and revise rounds after a rejected review, unless a workflow says otherwise. */
export const DEFAULT_MAX_FIXES = 2;
export const DEFAULT_MAX_REVISIONS = 2;

export function captureRequest(run: Run, request: string): Promise<void> {
  return run.engineer("request", { description: "Capture the engineer's request" }, (phase) =>
    phase.log("request captured", { request, workflow: run.workflow }),
  );
}

export function scout(run: Run, request: string): Promise<Scout> {
  return run.agent(
    "scout",
    { owner: "scout", description: "Explore the code the request touches" },
    (phase) =>
      phase.call({ outputType: ScoutOutput, prompt: request, previous: null, gates: [gates.artifactsExist] }),
  );
}

/** `previous` left out: the session's last envelope (a scout's findings, or one re-hydrated on a rejoin). */
export function plan(run: Run, request: string, previous?: object | null): Promise<Plan> {
  return run.agent("plan", { owner: "planner", description: "Turn the request into a plan file" }, (phase) =>
    phase.call({
      outputType: PlanOutput,
      prompt: request,
      ...withPrevious(previous),
      gates: [gates.artifactsExist, gates.filesNonEmpty],
    }),
  );
}

/** `undefined` keeps the engine's default (the session's last envelope); anything else is passed. */
function withPrevious(previous: object | null | undefined): { previous?: object | null } {
  return previous === undefined ? {} : { previous };
}

export interface BuildStep {
  /** Phase name (`build`, `fix`, `revise`). */
  name: string;
  description: string;
  prompt: string;
  /** Left out: the session's last envelope. */
  previous?: object | null;
  /**
   * The suites each attempt must pass under `--best-of` (the workflow's quality suites), run in the
   * attempt's own worktree; only the `build` phase runs attempts.
   */
  checkSuites?: readonly string[];
}

/** Per run, its builder envelopes in order (build, fix, revise): a later one's commit_message wins. */
const builds = new WeakMap<Run, Build[]>();

/** A builder phase; its `changed_files` must equal what the phase really changed. */
export async function build(run: Run, step: BuildStep): Promise<Build> {
  const options = { owner: "builder", description: step.description, ...bestOfBuild(run, step) };
  const built = await run.agent(step.name, options, (phase) =>
    phase.call({
      outputType: BuildOutput,
      prompt: step.prompt,
      ...withPrevious(step.previous),
      gates: [gates.diffMatchesClaims],
    }),
  );
  builds.set(run, [...(builds.get(run) ?? []), built]);
  return built;
}

/** The builder implementing a plan: the planner's envelope is its `previous`. */
export function buildFromPlan(
  run: Run,
  request: string,
  planned: Plan,
  checkSuites?: readonly string[],
): Promise<Build> {
  return build(run, {
    name: "build",
    description: "Implement the plan exactly",
    prompt: request,
    previous: planned,
    ...(checkSuites === undefined ? {} : { checkSuites }),
  });
}

/** Runs one suite as a code phase named after it; the result is the next agent's `previous`. */
export function runSuite(run: Run, suite: string): Promise<Verify> {
  return run.code(suite, { owner: "quality", description: `Run the ${suite} suite` }, (phase) =>
    phase.runSuite(suite),
  );
}

/** A suite's result, and how it ended at the base commit when that was asked. */
interface CheckedSuite {
  verify: Verify;
  baseline: SuiteBaseline | null;
}

/**
 * `runSuite`, and when the suite fails and `withBaseline`, the same suite at the run's base commit in
 * the same phase (`phase.suiteBaseline`: cached per commit), so a passing run pays nothing for it.
 * `perTest`: a suite with a per-test report compares its failures with the base's (in `runSuite`).
 */
function checkSuite(run: Run, suite: string, withBaseline: boolean, perTest: boolean): Promise<CheckedSuite> {
  return run.code(suite, { owner: "quality", description: `Run the ${suite} suite` }, async (phase) => {
    const verify = await phase.runSuite(suite, perTest ? {} : { baseline: false });
    const wanted = !verify.passed && !verify.pre_existing_only && withBaseline;
    const baseline = wanted ? await phase.suiteBaseline(suite) : null;
    return { verify, baseline };
  });
}

/** The configured suites a `"*"` workflow runs, `test` first so behaviour is checked before style. */
export function configuredSuites(run: Run): string[] {
  const names = Object.keys(run.config.quality);
  return [...names.filter((n) => n === "test"), ...names.filter((n) => n !== "test")];
}

export interface VerifyResult {
  passed: boolean;
  /** The last suite result seen: the failing one, or the last passing one. */
  last: Verify | null;
  /** The builder's fix envelopes, in order. */
  fixes: Build[];
  /**
   * Set when the failing suite failed the same way (the same exit code) at the run's base commit:
   * the change did not break it, so no fix round was spent on it. Never set when both sides have
   * per-test results: then the tests decide.
   */
  failedBefore: SuiteBaseline | null;
  /**
   * Suites of the last round that failed only with tests that already failed at the base commit
   * (`pre_existing_only`): they do not count against the change, so `passed` can be true with them.
   */
  preExisting: Verify[];
}

export interface VerifyOptions {
  /** Bound of the builder's fix rounds (default `DEFAULT_MAX_FIXES`). */
  maxFixes?: number;
  /**
   * Before the first fix round for a suite that has not passed yet, run it at the base commit and stop
   * when it failed there the same way (default true; a suite's `baseline: false` in the config turns
   * it off for that suite). False where the suites run on an unchanged tree, or passed already.
   */
  baseline?: boolean;
  /**
   * Compare a failing suite's per-test results with the base commit's (default: `baseline`). True
   * where the exit-code baseline says nothing (the suites passed before) but failures the base
   * already had are still not the change's; false where every failure is the run's to fix.
   */
  perTestBaseline?: boolean;
}

const testName = (test: { name: string; file: string | null }) =>
  test.file ? `${test.file} › ${test.name}` : test.name;

/** The fixing agent's prompt: exactly the failures that count against the change, when the suite names them. */
export function fixPrompt(request: string, failed: Verify): string {
  const head = `${request}\n\nThe ${failed.suite} suite fails after the change (exit ${failed.exit_code ?? "none"}); its output tail is in previous_envelope.output_tail${failed.log_path ? ` and its whole output in ${failed.log_path}` : ""}.`;
  const rule = "Fix the code so it passes. Do not weaken, skip or delete tests.";
  if (failed.tests === null || failed.failed_tests.length === 0) return `${head} ${rule}`;
  const more = failed.tests_omitted.failed_tests;
  const lines = [
    head,
    "",
    `These tests fail because of the change (previous_envelope.failed_tests has the first lines of each failure):`,
    ...failed.failed_tests.map((test) => `- ${testName(test)}`),
    ...(more > 0 ? [`- and ${more} more (all in ${failed.tests_path ?? "the suite's output"})`] : []),
  ];
  const before = failed.pre_existing_failures;
  if (before.length > 0) {
    const count = before.length + failed.tests_omitted.pre_existing_failures;
    lines.push(
      "",
      `${count === 1 ? "This test" : `These ${count} tests`} already failed at the run's base commit: they are not yours to fix, leave them as they are:`,
      ...before.slice(0, 50).map((test) => `- ${testName(test)}`),
    );
  }
  lines.push("", `${rule} Make the tests listed as failing because of the change pass.`);
  return lines.join("\n");
}

/**
 * Runs `suites` in order; on the first failure the builder fixes it (the failing `VerifyOutput` is its
 * `previous`) and every suite runs again, so the last fix is always re-tested. Stops after
 * `maxFixes` fixes that did not make every suite pass, and at once when the failing suite already
 * failed with the same exit code at the base commit (`failedBefore`; see `VerifyOptions.baseline`).
 * A suite whose every failing test already failed at the base (`pre_existing_only`) does not count
 * against the change: no fix round, no stop.
 */
export async function verifyLoop(
  run: Run,
  request: string,
  suites: readonly string[],
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const maxFixes = options.maxFixes ?? DEFAULT_MAX_FIXES;
  const perTest = options.perTestBaseline ?? options.baseline !== false;
  const fixes: Build[] = [];
  // A suite that passed in this loop and fails later was broken by a fix: its baseline says nothing.
  const settled = new Set<string>();
  for (;;) {
    let failed: Verify | null = null;
    let last: Verify | null = null;
    const preExisting: Verify[] = [];
    for (const suite of suites) {
      const withBaseline =
        options.baseline !== false && run.config.quality[suite]?.baseline !== false && !settled.has(suite);
      const checked = await checkSuite(run, suite, withBaseline, perTest);
      settled.add(suite);
      last = checked.verify;
      if (last.pre_existing_only) preExisting.push(last);
      else if (!last.passed) {
        failed = last;
        const before = checked.baseline;
        // With per-test results on both sides the tests decided (new failures are the change's).
        const perTestBoth = failed.tests !== null && Array.isArray(before?.failed_tests);
        if (before !== null && !before.passed && before.exit_code === failed.exit_code && !perTestBoth) {
          return { passed: false, last: failed, fixes, failedBefore: before, preExisting };
        }
        break;
      }
    }
    if (failed === null) return { passed: true, last, fixes, failedBefore: null, preExisting };
    if (fixes.length >= maxFixes) {
      return { passed: false, last: failed, fixes, failedBefore: null, preExisting };
    }
    fixes.push(
      await build(run, {
        name: "fix",
        description: `Fix the failing ${failed.suite} suite (round ${fixes.length + 1}/${maxFixes})`,
        prompt: fixPrompt(request, failed),
        previous: failed,
      }),
    );
  }
}

/** Why a run stops when its failing suite failed the same way before any change, else null. */
export function failedBeforeReason(verified: VerifyResult): string | null {
  const before = verified.failedBefore;
  if (before === null) return null;
  return `${before.suite} failing before any change (baseline at ${before.commit.slice(0, 12)}: exit ${before.exit_code ?? "none"} there too); no fix rounds spent (set quality.${before.suite}.baseline: false to fix it anyway)`;
}

/**
 * How passing suites are described when some failed only with pre-existing failures
 * (`test: 2 pre-existing failures, none new`), else `otherwise`.
 */
export function passedReason(verified: VerifyResult, otherwise: string): string {
  if (verified.preExisting.length === 0) return otherwise;
  return verified.preExisting
    .map((verify) => {
      const n = verify.pre_existing_failures.length + verify.tests_omitted.pre_existing_failures;
      return `${verify.suite}: ${n} pre-existing failure${n === 1 ? "" : "s"}, none new`;
    })
    .join("; ");
}

/** The outcome of `verifyLoop` over the `test` suite: whether it counts as passing, and the reason to give. */
export async function testsVerdict(run: Run, request: string): Promise<{ ok: boolean; reason: string }> {
  const tested = await verifyLoop(run, request, ["test"]);
  if (tested.passed) return { ok: true, reason: passedReason(tested, "tests pass") };
  const reason = failedBeforeReason(tested) ?? `tests still fail after ${tested.fixes.length} fix(es)`;
  return { ok: false, reason };
}

/** `verifyLoop` over the `test` suite: null when the tests pass, else why the run is not accepted. */
export async function testsFailReason(run: Run, request: string): Promise<string | null> {
  const verdict = await testsVerdict(run, request);
  return verdict.ok ? null : verdict.reason;
}

/** Captures the run's changes so far as a `ChangesOutput` (diff saved in the session directory). */
export function captureChanges(run: Run, name = "changes"): Promise<Changes> {
  return run.code(name, { owner: "git", description: "Capture the run's diff for the next agent" }, (phase) =>
    phase.captureChanges(),
  );
}

export function review(run: Run, request: string, changes: Changes): Promise<Review> {
  return run.agent(
    "review",
    { owner: "reviewer", description: "Review the change against the request" },
    (phase) =>
      phase.call({
        outputType: ReviewOutput,
        prompt: request,
        previous: changes,
        gates: [gates.verdictConsistent],
      }),
  );
}

export interface ReviewResult {
  approved: boolean;
  review: Review;
  /** The change the last review saw. */
  changes: Changes;
  /** False when a revision broke a suite that its fixes could not repair. */
  suitesPassed: boolean;
}

/**
 * Review → (revise → re-verify → review)*: a rejected review's `blocking` items go to the builder, the
 * revision is re-tested with `suites`, and the reviewer sees the new diff. At most `maxRevisions` rounds.
 */
export async function reviewLoop(
  run: Run,
  request: string,
  suites: readonly string[],
  maxRevisions = DEFAULT_MAX_REVISIONS,
): Promise<ReviewResult> {
  for (let round = 0; ; round++) {
    const changes = await captureChanges(run);
    const verdict = await review(run, request, changes);
    if (verdict.approved || round >= maxRevisions) {
      return { approved: verdict.approved, review: verdict, changes, suitesPassed: true };
    }
    await build(run, {
      name: "revise",
      description: `Address the review's blocking items (round ${round + 1}/${maxRevisions})`,
      prompt: `${request}\n\nThe reviewer did not approve. Fix every item of previous_envelope.blocking, nothing else.`,
      previous: verdict,
    });
    if (suites.length > 0) {
      // The suites passed before this revision: a failure now is the revision's.
      const verified = await verifyLoop(run, request, suites, { baseline: false, perTestBaseline: true });
      if (!verified.passed) return { approved: false, review: verdict, changes, suitesPassed: false };
    }
  }
}

export function document(run: Run, request: string, previous?: object | null): Promise<Document> {
  return run.agent("document", { owner: "documenter", description: "Write up the change" }, (phase) =>
    phase.call({
      outputType: DocumentOutput,
      prompt: request,
      ...withPrevious(previous),
      gates: [gates.artifactsExist, gates.filesNonEmpty],
    }),
  );
}

/**
 * The envelope's own commit message, or `sssf(<adw_id>): <summary>` when it gave none. For a builder's
 * envelope, the messages of the builder envelopes after it (fixes, revisions) are kept too: the first
 * build's message stays the subject (the commit holds the whole feature), each later one becomes a line
 * of the body, so no fix's message is dropped.
 */
export function commitMessage(run: Run, envelope: { commit_message?: string; summary: string }): string {
  const all = builds.get(run) ?? [];
  const from = all.indexOf(envelope as Build);
  const later = (from < 0 ? [] : all.slice(from + 1))
    .map((b) => b.commit_message.trim())
    .filter((message) => message !== "");
  const own = envelope.commit_message?.trim() ?? "";
  const subject = own !== "" ? own : later.shift();
  const head = subject ?? `sssf(${run.adwId}): ${envelope.summary.trim() || run.request.split("\n")[0]}`;
  const body = [...new Set(later)].filter((message) => message !== head);
  return body.length === 0 ? head : `${head}\n\n${body.map((message) => `- ${message}`).join("\n")}`;
}

/** A `git` code phase committing exactly the run's own changes since its last commit. */
export function commit(
  run: Run,
  name: string,
  envelope: { commit_message?: string; summary: string },
): Promise<CommitResult | null> {
  return run.code(name, { owner: "git", description: "Commit the run's own changes" }, (phase) =>
    phase.commit(commitMessage(run, envelope)),
  );
}
