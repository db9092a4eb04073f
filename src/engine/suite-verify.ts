/**
 * A quality suite's result as the `VerifyOutput` envelope agents and workflows read: with per-test
 * results, its failures compared with the same suite at the run's base commit, so a failure that was
 * already there is told apart from one the change made.
 */
import type { SuiteBaseline } from "../api/run-api.js";
import {
  bounded,
  compareWithBase,
  countTests,
  type TestComparison,
} from "../code/test-report/compare-tests.js";
import type { EnvelopeOf } from "../envelope/output-type.js";
import type { VerifyOutput } from "../envelope/schemas.js";
import type { SuiteResult } from "../gates/gate.js";

type Verify = EnvelopeOf<typeof VerifyOutput>;

/** Where the base commit's outcome comes from. */
export interface BaseLookup {
  /** Runs the suite at the base (or reads the cache); null without a base commit. */
  run(): Promise<SuiteBaseline | null>;
  /** The cache only: never runs the suite. */
  cached(): SuiteBaseline | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The base's failing tests for `result`: asked (run once per commit, cached) when the suite failed,
 * read from the cache only when it passed (to name what it fixed); null without per-test data on
 * either side. A baseline that cannot be had (git refuses the worktree…) is no baseline.
 */
async function baseFailures(
  result: SuiteResult,
  base: BaseLookup | null,
  onError: (error: unknown) => void,
): Promise<NonNullable<SuiteBaseline["failed_tests"]> | null> {
  if (base === null || result.tests === null) return null;
  const failing = result.tests.some((test) => test.status === "failed") || !result.passed;
  try {
    const found = failing ? await base.run() : base.cached();
    return found?.failed_tests ?? null;
  } catch (error) {
    onError(error);
    return null;
  }
}

function summaryOf(result: SuiteResult, comparison: TestComparison | null, preExistingOnly: boolean): string {
  const head = `${result.suite}: ${result.passed ? "passed" : `failed (exit ${result.exitCode ?? "none"})`}`;
  if (result.tests === null || comparison === null) return head;
  const counts = countTests(result.tests);
  const fixed = comparison.fixed.length > 0 ? `; ${plural(comparison.fixed.length, "test")} fixed` : "";
  if (preExistingOnly) {
    return `${head}: ${plural(comparison.preExisting.length, "pre-existing failure")}, none new${fixed}`;
  }
  if (counts.failed === 0) return `${head}: ${plural(counts.passed, "test")} passed${fixed}`;
  const pre = comparison.preExisting.length > 0 ? `, ${comparison.preExisting.length} pre-existing` : "";
  return `${head}: ${counts.failed} of ${plural(counts.total, "test")} failed (${comparison.newFailures.length} new${pre})${fixed}`;
}

function notesOf(result: SuiteResult, envelope: Pick<Verify, "failed_tests" | "pre_existing_failures">) {
  if (result.passed) return "";
  const whole = result.logPath ? `, its whole output in ${result.logPath}` : "";
  const failing =
    envelope.failed_tests.length > 0
      ? ` The failing tests are in failed_tests (each with the first lines of its failure).`
      : "";
  const before =
    envelope.pre_existing_failures.length > 0
      ? " The tests in pre_existing_failures already failed at the run's base commit: they are not the change's to fix."
      : "";
  return `The ${result.suite} suite fails; its output tail is in output_tail${whole}.${failing}${before}`;
}

/**
 * The `VerifyOutput` of a suite run. Without a report (`result.tests` null) it carries the exit code
 * and output as always; with one, its counts, the failures that count against the change (all of
 * them when the base has no per-test data), the pre-existing ones, the fixed ones and
 * `pre_existing_only` (failed, and every failing test failed at the base too). Lists keep 200
 * entries; `tests_omitted` counts the rest. `base` null: no comparison (`baseline: false`).
 */
export async function verifyEnvelope(
  result: SuiteResult,
  base: BaseLookup | null,
  onBaselineError: (error: unknown) => void = () => {},
): Promise<Verify> {
  const baseList = await baseFailures(result, base, onBaselineError);
  const comparison = result.tests === null ? null : compareWithBase(result.tests, baseList);
  const failed = bounded(comparison?.newFailures ?? []);
  const pre = bounded(comparison?.preExisting ?? []);
  const fixed = bounded(comparison?.fixed ?? []);
  const preExistingOnly =
    !result.passed &&
    comparison !== null &&
    baseList !== null &&
    comparison.newFailures.length === 0 &&
    comparison.preExisting.length > 0;
  const lists = {
    failed_tests: failed.items.map((t) => ({ name: t.name, file: t.file, message: t.message })),
    pre_existing_failures: pre.items.map((t) => ({ name: t.name, file: t.file })),
  };
  return {
    status: result.passed ? "success" : "fail",
    summary: summaryOf(result, comparison, preExistingOnly),
    artifacts: [],
    notes_for_next_agent: notesOf(result, lists),
    suite: result.suite,
    command: result.command,
    exit_code: result.exitCode,
    passed: result.passed,
    duration_ms: result.durationMs,
    output_tail: result.outputTail,
    log_path: result.logPath,
    tests: result.tests === null ? null : countTests(result.tests),
    ...lists,
    fixed_tests: fixed.items.map((t) => ({ name: t.name, file: t.file })),
    pre_existing_only: preExistingOnly,
    tests_path: result.testsPath,
    tests_omitted: { failed_tests: failed.more, pre_existing_failures: pre.more, fixed_tests: fixed.more },
  };
}
