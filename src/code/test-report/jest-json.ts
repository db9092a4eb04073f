import { z } from "zod";
import { jsonDocument } from "./json-lines.js";
import { failureMessage, type TestCase, type TestReportResult, testCase, unreadable } from "./test-case.js";

const Assertion = z.looseObject({
  ancestorTitles: z.array(z.string()).optional(),
  title: z.string(),
  status: z.string(),
  failureMessages: z.array(z.unknown()).nullish(),
});

const FileResult = z.looseObject({
  name: z.string(),
  status: z.string().optional(),
  message: z.string().nullish(),
  assertionResults: z.array(z.unknown()).default([]),
});

const Report = z.looseObject({ testResults: z.array(FileResult) });

/** jest's pending/todo/disabled, vitest's skipped/todo: did not run, did not fail. */
const NOT_RUN = new Set(["pending", "skipped", "todo", "disabled"]);

/**
 * jest `--json` and vitest `--reporter=json`: `testResults[].assertionResults[]`, named by their
 * describe titles and title joined with ` > `, placed in the test file. A test file that failed to
 * run (a syntax error, a failing import) with no test results is a failed entry named after it.
 */
export function parseJestJson(input: string): TestReportResult {
  const document = jsonDocument(input);
  if (!document.ok) return unreadable(document.reason);
  const report = Report.safeParse(document.value);
  if (!report.success) return unreadable("not a jest/vitest JSON report: no testResults list");
  const tests: TestCase[] = [];
  for (const file of report.data.testResults) {
    let failures = 0;
    for (const item of file.assertionResults) {
      const parsed = Assertion.safeParse(item);
      if (!parsed.success) continue;
      const { ancestorTitles = [], title, status, failureMessages } = parsed.data;
      const name = [...ancestorTitles, title].join(" > ");
      if (NOT_RUN.has(status)) tests.push(testCase(name, file.name, "skipped"));
      else if (status === "passed") tests.push(testCase(name, file.name, "passed"));
      else {
        failures++;
        const messages = (failureMessages ?? []).filter((m): m is string => typeof m === "string");
        tests.push(testCase(name, file.name, "failed", failureMessage(...messages)));
      }
    }
    if (failures === 0 && file.status === "failed") {
      tests.push(testCase("(test file failed to run)", file.name, "failed", failureMessage(file.message)));
    }
  }
  return { ok: true, tests };
}
