import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareWithBase, testKey } from "../../../src/code/test-report/compare-tests.js";
import {
  MAX_REPORT_CHARS,
  parseTestReport,
  type TestReportResult,
} from "../../../src/code/test-report/parse-test-report.js";
import { REPORT_FORMATS, type ReportFormat } from "../../../src/config/report-formats.js";

const fixtures = path.join(import.meta.dirname, "../../fixtures/test-reports");
const FIXTURES: [ReportFormat, string][] = [
  ["junit", "pytest.junit.xml"],
  ["junit", "vitest.junit.xml"],
  ["junit", "junit-writers.xml"],
  ["tap", "node-test.tap"],
  ["tap", "tap14-bailout.tap"],
  ["jest-json", "vitest.json"],
  ["jest-json", "jest.json"],
  ["pytest-json", "pytest-json-report.json"],
  ["go-test-json", "go-test.jsonl"],
  ["libtest-json", "cargo-test.libtest.jsonl"],
];
const texts = FIXTURES.map(
  ([format, file]) => [format, readFileSync(path.join(fixtures, file), "utf8")] as const,
);

/** Same seed every run: a failure reproduces. */
const runs = { seed: 37, numRuns: 150 };

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** What every answer must be: a reason, or tests whose text is printable and bounded. */
function wellFormed(result: TestReportResult): void {
  if (!result.ok) {
    expect(typeof result.reason).toBe("string");
    expect(result.reason.length).toBeLessThanOrEqual(300);
    return;
  }
  for (const test of result.tests) {
    expect(["passed", "failed", "skipped"]).toContain(test.status);
    expect(test.name).not.toMatch(CONTROL);
    expect(test.name).not.toContain("\n");
    expect(test.name.length).toBeLessThanOrEqual(500);
    expect(test.file ?? "").not.toMatch(CONTROL);
    if (test.message !== null) {
      expect(test.status).toBe("failed");
      expect(test.message.length).toBeLessThanOrEqual(2000);
      expect(test.message).not.toMatch(CONTROL);
    }
  }
}

describe("hostile reports never crash a suite", () => {
  it("a report cut anywhere is read or refused with a reason", () => {
    fc.assert(
      fc.property(fc.constantFrom(...texts), fc.double({ min: 0, max: 1, noNaN: true }), (fixture, cut) => {
        const [format, text] = fixture;
        wellFormed(parseTestReport(format, text.slice(0, Math.floor(text.length * cut))));
      }),
      runs,
    );
  });

  it("garbage and control characters in any format are refused or read safely", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...REPORT_FORMATS),
        fc.oneof(fc.string({ unit: "binary", maxLength: 400 }), fc.string({ maxLength: 400 })),
        (format, junk) => wellFormed(parseTestReport(format, junk)),
      ),
      runs,
    );
  });

  it("names with control characters, newlines and ` › ` keep their identity but print safely", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
        fc.string({ maxLength: 20 }),
        (raw, file) => {
          const name = `a › ${raw}`;
          const report = JSON.stringify({
            testResults: [
              {
                name: file,
                status: "failed",
                assertionResults: [
                  { ancestorTitles: [], title: name, status: "failed", failureMessages: [raw] },
                ],
              },
            ],
          });
          const result = parseTestReport("jest-json", report);
          wellFormed(result);
          if (!result.ok) throw new Error(result.reason);
          const [test] = result.tests;
          expect(test?.name.startsWith("a › ")).toBe(true);
          // The same report read twice gives the same identity: a baseline comparison finds it.
          const again = parseTestReport("jest-json", report);
          if (!again.ok || test === undefined) throw new Error("not read again");
          expect(
            compareWithBase(again.tests, [{ name: test.name, file: test.file }]).preExisting,
          ).toHaveLength(1);
          expect(testKey(again.tests[0] ?? test)).toBe(testKey(test));
        },
      ),
      runs,
    );
  });

  it("secrets in failure messages are redacted in every format", () => {
    const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...alphabet), minLength: 36, maxLength: 36 }), (tail) => {
        const secret = `ghp_${tail}`;
        const reports: [ReportFormat, string][] = [
          [
            "junit",
            `<testsuite><testcase name="t"><failure message="token ${secret}">at ${secret}</failure></testcase></testsuite>`,
          ],
          ["tap", `TAP version 13\nnot ok 1 - t\n  ---\n  error: 'token ${secret}'\n  ...\n1..1\n`],
          [
            "jest-json",
            JSON.stringify({
              testResults: [
                {
                  name: "f",
                  assertionResults: [{ title: "t", status: "failed", failureMessages: [`token ${secret}`] }],
                },
              ],
            }),
          ],
          [
            "pytest-json",
            JSON.stringify({
              summary: {},
              tests: [
                {
                  nodeid: "f.py::t",
                  outcome: "failed",
                  call: { outcome: "failed", crash: { message: `token ${secret}` } },
                },
              ],
            }),
          ],
          [
            "go-test-json",
            [
              { Action: "output", Package: "p", Test: "T", Output: `token ${secret}\n` },
              { Action: "fail", Package: "p", Test: "T" },
            ]
              .map((e) => JSON.stringify(e))
              .join("\n"),
          ],
          [
            "libtest-json",
            JSON.stringify({ type: "test", event: "failed", name: "t", stdout: `token ${secret}\n` }),
          ],
        ];
        for (const [format, text] of reports) {
          const result = parseTestReport(format, text);
          if (!result.ok) throw new Error(`${format}: ${result.reason}`);
          expect(result.tests[0]?.status).toBe("failed");
          expect(result.tests[0]?.message).toContain("token [redacted:github-pat]");
          expect(JSON.stringify(result.tests)).not.toContain(secret);
        }
      }),
      { seed: 37, numRuns: 40 },
    );
  });
});

describe("XML that tries to expand or reach out", () => {
  it("refuses entity declarations: a billion laughs and an external entity", () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
      { length: 9 },
      (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`,
    ).join("")}]><testsuite><testcase name="&lol9;"/></testsuite>`;
    expect(parseTestReport("junit", laughs)).toEqual({
      ok: false,
      reason: "JUnit XML declares entities (<!ENTITY): not read",
    });
    const external = `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite><testcase name="&x;"/></testsuite>`;
    expect(parseTestReport("junit", external)).toMatchObject({ ok: false });
  });

  it("decodes XML's own and numeric references, nothing else", () => {
    const result = parseTestReport(
      "junit",
      `<testsuite><testcase name="a &lt;b&gt; &amp; c&#10;d &#x263A;"><failure message="x &quot;y&quot;"/></testcase></testsuite>`,
    );
    expect(result).toEqual({
      ok: true,
      tests: [{ name: "a <b> & c d ☺", file: null, status: "failed", message: 'x "y"' }],
    });
  });

  it("a huge report is refused before parsing; a large one with many tests is read whole", () => {
    const huge = `<testsuite>${" ".repeat(MAX_REPORT_CHARS)}</testsuite>`;
    expect(parseTestReport("junit", huge)).toMatchObject({ ok: false, reason: /larger than 32 MiB/ });
    const many = `<testsuites><testsuite>${Array.from({ length: 20_000 }, (_, i) => `<testcase classname="c" name="t${i}"${i % 1000 === 0 ? "><failure/></testcase>" : "/>"}`).join("")}</testsuite></testsuites>`;
    const result = parseTestReport("junit", many);
    if (!result.ok) throw new Error(result.reason);
    expect(result.tests).toHaveLength(20_000);
    expect(result.tests.filter((t) => t.status === "failed")).toHaveLength(20);
  });

  it("suites nested past 64 levels are not followed", () => {
    const deep = `${"<testsuite>".repeat(80)}<testcase name="deep"/>${"</testsuite>".repeat(80)}`;
    const shallow = `${"<testsuite>".repeat(10)}<testcase name="near"/>${"</testsuite>".repeat(10)}`;
    expect(parseTestReport("junit", deep)).toEqual({ ok: true, tests: [] });
    expect(parseTestReport("junit", shallow)).toMatchObject({ ok: true, tests: [{ name: "near" }] });
  });
});
