import type { TestCase } from "./test-case.js";

/** A test as comparisons see it: file + name is its identity across runs. */
export interface TestRef {
  name: string;
  file: string | null;
}

export interface TestCounts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** Entries a list in an envelope keeps; the rest is only counted. */
export const LISTED_TESTS = 200;

/** The identity of a test across runs: its file and name. */
export function testKey(test: TestRef): string {
  return `${test.file ?? ""}\u0000${test.name}`;
}

export function countTests(tests: readonly TestCase[]): TestCounts {
  const counts = { total: tests.length, passed: 0, failed: 0, skipped: 0 };
  for (const test of tests) counts[test.status]++;
  return counts;
}

/** The failing tests of a run, as refs (each once). */
export function failingRefs(tests: readonly TestCase[]): TestRef[] {
  const seen = new Set<string>();
  const refs: TestRef[] = [];
  for (const test of tests) {
    if (test.status !== "failed" || seen.has(testKey(test))) continue;
    seen.add(testKey(test));
    refs.push({ name: test.name, file: test.file });
  }
  return refs;
}

/** How a run's tests compare with the same suite at the base commit. */
export interface TestComparison {
  /** Failing now and not at the base: these count against the change. */
  newFailures: TestCase[];
  /** Failing now and at the base. */
  preExisting: TestCase[];
  /** Failing at the base, passing now. */
  fixed: TestRef[];
}

/**
 * Compares a run's tests with the failing tests at the base (`baseFailures`; null when the base has
 * no per-test data: every failure is then new and nothing is fixed).
 */
export function compareWithBase(
  tests: readonly TestCase[],
  baseFailures: readonly TestRef[] | null,
): TestComparison {
  const failingNow = tests.filter((test) => test.status === "failed");
  if (baseFailures === null) return { newFailures: failingNow, preExisting: [], fixed: [] };
  const before = new Set(baseFailures.map(testKey));
  const passingNow = new Set(tests.filter((test) => test.status === "passed").map(testKey));
  return {
    newFailures: failingNow.filter((test) => !before.has(testKey(test))),
    preExisting: failingNow.filter((test) => before.has(testKey(test))),
    fixed: baseFailures.filter((ref) => passingNow.has(testKey(ref))),
  };
}

/** At most `LISTED_TESTS` entries, and how many were left out. */
export function bounded<T>(items: readonly T[]): { items: T[]; more: number } {
  return { items: items.slice(0, LISTED_TESTS), more: Math.max(0, items.length - LISTED_TESTS) };
}
