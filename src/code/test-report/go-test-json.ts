import { z } from "zod";
import { jsonLines } from "./json-lines.js";
import { failureMessage, type TestCase, type TestReportResult, testCase, unreadable } from "./test-case.js";

/** One test2json event (`go test -json`); build-output and build-fail events carry ImportPath. */
const Event = z.looseObject({
  Action: z.string(),
  Package: z.string().optional(),
  ImportPath: z.string().optional(),
  Test: z.string().optional(),
  Output: z.string().optional(),
});
type Event = z.output<typeof Event>;

/** Output lines kept per test for its failure message. */
const KEPT_LINES = 40;

/** `=== RUN`, `--- FAIL: …` and the like: the runner's framing, not the failure. */
const FRAMING = /^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (FAIL|PASS|SKIP)|FAIL$|PASS$|ok\s)/;

interface Entry {
  pkg: string;
  test: string | null;
  outcome: "pass" | "fail" | "skip" | null;
  output: string[];
}

/**
 * `go test -json` NDJSON (test2json events): a test's last pass/fail/skip is its outcome; a parent
 * test is not counted beside its subtests (`TestA/sub`) unless it failed with none failing; a
 * package that failed with no failing test (a build failure, a panic in init, a timeout) is a failed
 * entry named after the package.
 */
export function parseGoTestJson(input: string): TestReportResult {
  const events = jsonLines(input, Event);
  if (events.length === 0) return unreadable("no go test -json events (lines with an Action) found");
  const entries = new Map<string, Entry>();
  const entry = (pkg: string, test: string | null): Entry => {
    const key = `${pkg}\u0000${test ?? ""}`;
    let found = entries.get(key);
    if (found === undefined) {
      found = { pkg, test, outcome: null, output: [] };
      entries.set(key, found);
    }
    return found;
  };
  for (const event of events) {
    const pkg = event.Package ?? event.ImportPath?.split(" ")[0] ?? "";
    const target = entry(pkg, event.Test ?? null);
    if ((event.Action === "output" || event.Action === "build-output") && event.Output !== undefined) {
      if (!FRAMING.test(event.Output) && target.output.length < KEPT_LINES) target.output.push(event.Output);
    } else if (event.Action === "pass" || event.Action === "fail" || event.Action === "skip") {
      target.outcome = event.Action;
    } else if (event.Action === "build-fail") target.outcome = "fail";
  }
  const tests: TestCase[] = [];
  const all = [...entries.values()];
  // Each parent (`TestA`, `TestA/sub`) of a finished subtest, and of a failed one, by package.
  const parents = new Set<string>();
  const failedParents = new Set<string>();
  for (const e of all) {
    if (e.test === null || e.outcome === null) continue;
    const parts = e.test.split("/");
    for (let n = 1; n < parts.length; n++) {
      const key = `${e.pkg}\u0000${parts.slice(0, n).join("/")}`;
      parents.add(key);
      if (e.outcome === "fail") failedParents.add(key);
    }
  }
  const failedIn = new Set<string>();
  for (const e of all) {
    if (e.test === null || e.outcome === null) continue;
    const key = `${e.pkg}\u0000${e.test}`;
    if (e.outcome === "fail") failedIn.add(e.pkg);
    if (parents.has(key) && !(e.outcome === "fail" && !failedParents.has(key))) continue;
    const status = e.outcome === "fail" ? "failed" : e.outcome === "skip" ? "skipped" : "passed";
    tests.push(
      testCase(e.test, e.pkg, status, status === "failed" ? failureMessage(e.output.join("")) : null),
    );
  }
  for (const e of all) {
    if (e.test !== null || e.outcome !== "fail" || failedIn.has(e.pkg)) continue;
    tests.push(testCase(e.pkg, e.pkg, "failed", failureMessage(e.output.join(""))));
  }
  return { ok: true, tests };
}

/** What `go test` would have printed: the events' Output fields in order (the suite's readable tail). */
export function goTestOutput(input: string): string {
  return jsonLines(input, Event)
    .map((event: Event) => (event.Output === undefined ? "" : event.Output))
    .join("");
}
