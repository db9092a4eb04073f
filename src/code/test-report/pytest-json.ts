import { z } from "zod";
import { jsonDocument } from "./json-lines.js";
import { failureMessage, type TestCase, type TestReportResult, testCase, unreadable } from "./test-case.js";

const Crash = z.looseObject({ message: z.string().optional() }).nullish();
const Stage = z
  .looseObject({ outcome: z.string().optional(), crash: Crash, longrepr: z.unknown().optional() })
  .nullish();

const Test = z.looseObject({
  nodeid: z.string(),
  outcome: z.string(),
  setup: Stage,
  call: Stage,
  teardown: Stage,
});

const Collector = z.looseObject({
  nodeid: z.string(),
  outcome: z.string(),
  longrepr: z.unknown().optional(),
});

const Report = z.looseObject({
  tests: z.array(z.unknown()).default([]),
  collectors: z.array(z.unknown()).default([]),
  summary: z.looseObject({}).optional(),
});

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** `tests/test_a.py::TestX::test_y[1]` → file `tests/test_a.py`, name `TestX::test_y[1]`. */
function split(nodeid: string): { file: string | null; name: string } {
  const at = nodeid.indexOf("::");
  return at < 0 ? { file: null, name: nodeid } : { file: nodeid.slice(0, at), name: nodeid.slice(at + 2) };
}

function messageOf(test: z.output<typeof Test>): string | null {
  for (const stage of [test.call, test.setup, test.teardown]) {
    if (stage?.outcome !== "failed") continue;
    return failureMessage(stage.crash?.message, text(stage.longrepr));
  }
  return null;
}

/**
 * The pytest-json-report plugin's `--json-report-file`: `tests[]` by node id (file `::` name);
 * failed and error = failed, skipped and xfailed = skipped, passed and xpassed = passed. A collector
 * that failed (a module that cannot be imported) is a failed entry named after it.
 */
export function parsePytestJson(input: string): TestReportResult {
  const document = jsonDocument(input);
  if (!document.ok) return unreadable(document.reason);
  const report = Report.safeParse(document.value);
  if (!report.success || (report.data.summary === undefined && report.data.tests.length === 0)) {
    return unreadable("not a pytest-json-report report: no tests list or summary");
  }
  const tests: TestCase[] = [];
  for (const item of report.data.tests) {
    const parsed = Test.safeParse(item);
    if (!parsed.success) continue;
    const { file, name } = split(parsed.data.nodeid);
    const outcome = parsed.data.outcome;
    if (outcome === "failed" || outcome === "error") {
      tests.push(testCase(name, file, "failed", messageOf(parsed.data)));
    } else if (outcome === "skipped" || outcome === "xfailed") tests.push(testCase(name, file, "skipped"));
    else tests.push(testCase(name, file, "passed"));
  }
  for (const item of report.data.collectors) {
    const parsed = Collector.safeParse(item);
    if (!parsed.success || parsed.data.outcome !== "failed") continue;
    // A module's node id has no `::`: the module is the file, the entry is its collection.
    const nodeid = parsed.data.nodeid;
    const { file, name } = nodeid.includes("::") ? split(nodeid) : { file: nodeid, name: "(collection)" };
    tests.push(testCase(name, file, "failed", failureMessage(text(parsed.data.longrepr))));
  }
  return { ok: true, tests };
}
