import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runQualitySuite } from "../../src/code/quality.js";
import type { QualitySuiteConfig } from "../../src/config/config-types.js";
import type { SuiteReportConfig } from "../../src/config/report-formats.js";
import { makeTempDir, removeTempDir } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

const fixtures = path.join(import.meta.dirname, "../fixtures/test-reports");

/** A suite running `script` with node; `args` after it (where `{report_file}` may stand). */
const suite = (
  script: string,
  report: SuiteReportConfig | undefined,
  args: string[] = [],
  env: Record<string, string> = {},
): QualitySuiteConfig => ({
  name: "test",
  command: [process.execPath, "-e", script, ...args],
  timeoutMs: 30_000,
  env,
  ...(report ? { report } : {}),
});

/** A script copying a fixture to the path in argv[1] (or $REPORT), then exiting with `code`. */
const copies = (fixture: string, code: number, target = "process.argv[1]") =>
  `require("node:fs").copyFileSync(${JSON.stringify(path.join(fixtures, fixture))}, ${target}); console.log("ran"); process.exit(${code})`;

describe("a suite's per-test report", () => {
  it("replaces {report_file} in the arguments with a fresh path beside the log, reads it, saves every test", async () => {
    dir = makeTempDir("report");
    const logPath = path.join(dir, "session", "code", "p03-test.test.log");
    const result = await runQualitySuite(
      suite(copies("pytest.junit.xml", 1, 'process.argv[1].split("=")[1]'), { format: "junit" }, [
        "--",
        "--junitxml={report_file}",
      ]),
      dir,
      { logPath },
    );
    expect(result.passed).toBe(false);
    expect(result.tests?.filter((t) => t.status === "failed").map((t) => t.name)).toEqual([
      "test_fails",
      "test_param[2]",
      "test_inner_error",
    ]);
    expect(existsSync(path.join(dir, "session", "code", "p03-test.test.report.xml"))).toBe(true);
    expect(result.testsPath).toBe(path.join(dir, "session", "code", "p03-test.test.tests.json"));
    const saved = JSON.parse(readFileSync(String(result.testsPath), "utf8")) as { tests: unknown[] };
    expect(saved.tests).toHaveLength(10);
    expect(result.outputTail).toBe("ran");
  });

  it("replaces {report_file} in env values too, and reads a `file` relative to the suite's cwd", async () => {
    dir = makeTempDir("report");
    const fromEnv = await runQualitySuite(
      suite(copies("vitest.json", 0, "process.env.REPORT"), { format: "jest-json" }, [], {
        REPORT: "{report_file}",
      }),
      dir,
    );
    expect(fromEnv.tests).toHaveLength(10);
    // No log: nowhere to save the list.
    expect(fromEnv.testsPath).toBeNull();

    const relative = await runQualitySuite(
      suite(copies("node-test.tap", 1, '"out/report.tap"'), { format: "tap", file: "out/report.tap" }),
      dir,
    );
    expect(relative.tests?.map((t) => t.status).filter((s) => s === "failed")).toHaveLength(3);
  });

  it("deletes a stale report first: a suite that writes none has no per-test results, and says why", async () => {
    dir = makeTempDir("report");
    writeFileSync(path.join(dir, "stale.xml"), readFileSync(path.join(fixtures, "vitest.junit.xml")));
    const result = await runQualitySuite(
      suite("console.log('no report today')", { format: "junit", file: "stale.xml" }),
      dir,
    );
    expect(result.passed).toBe(true);
    expect(result.tests).toBeNull();
    expect(result.outputTail.split("\n")).toEqual([
      "no report today",
      `[sssf] no per-test report: ${path.join(dir, "stale.xml")} was not written`,
    ]);
  });

  it("an unreadable report leaves the exit code in charge, with the reason in the tail and the log", async () => {
    dir = makeTempDir("report");
    const logPath = path.join(dir, "p03-test.test.log");
    const result = await runQualitySuite(
      suite(
        `require("node:fs").writeFileSync(process.argv[1], "<testsuite><testcase"); process.exit(3)`,
        { format: "junit" },
        ["{report_file}"],
      ),
      dir,
      { logPath },
    );
    expect(result).toMatchObject({ passed: false, exitCode: 3, tests: null, testsPath: null });
    expect(result.outputTail).toMatch(/^\[sssf\] no per-test report: not well-formed JUnit XML/);
    expect(readFileSync(logPath, "utf8")).toContain("[sssf] no per-test report: not well-formed JUnit XML");
  });

  it("reads a report from stdout when neither `file` nor {report_file} names one", async () => {
    dir = makeTempDir("report");
    const tap = await runQualitySuite(
      suite(
        'console.log("TAP version 13\\nok 1 - a\\nnot ok 2 - b\\n1..2"); console.error("noise on stderr"); process.exit(1)',
        {
          format: "tap",
        },
      ),
      dir,
    );
    expect(tap.tests?.map((t) => `${t.status} ${t.name}`)).toEqual(["passed a", "failed b"]);
  });

  it("go test -json on stdout: the tail shows the events' output, not the JSON", async () => {
    dir = makeTempDir("report");
    const result = await runQualitySuite(
      suite(
        `process.stdout.write(require("node:fs").readFileSync(${JSON.stringify(path.join(fixtures, "go-test.jsonl"))})); process.exit(1)`,
        { format: "go-test-json" },
      ),
      dir,
    );
    expect(result.tests?.filter((t) => t.status === "failed")).toHaveLength(3);
    expect(result.outputTail).toContain("--- FAIL: TestTotal (0.00s)");
    expect(result.outputTail).toContain("FAIL\texample.com/shop/broken [build failed]");
    expect(result.outputTail).not.toContain('"Action"');
    expect(result.outputTail).not.toContain("ghp_");
  });

  it("a suite without `report:` is as before: no tests, no note", async () => {
    dir = makeTempDir("report");
    const result = await runQualitySuite(suite("console.log('{report_file}')", undefined), dir);
    expect(result).toMatchObject({ passed: true, tests: null, testsPath: null, outputTail: "{report_file}" });
  });
});
