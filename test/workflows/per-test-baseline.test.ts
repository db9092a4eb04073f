import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { adwIdFrom } from "../helpers/sandbox.js";
import { git, reply, WorkflowWorld } from "./workflow-world.js";

/**
 * A Python package whose pytest suite writes JUnit XML (`--junitxml={report_file}`): at the base
 * commit `test_known_bug` already fails (sub subtracts the wrong way round), the others pass.
 */
const CALC_AT_BASE = `def add(a, b):
    return a + b


def mul(a, b):
    return a * b


def sub(a, b):
    return b - a
`;

const TESTS = `import calc


def test_add():
    assert calc.add(2, 3) == 5


def test_mul():
    assert calc.mul(2, 3) == 6, "mul(2, 3) is wrong"


def test_known_bug():
    assert calc.sub(3, 1) == 2
`;

const write = (content: string, summary: string, commit_message: string): ScriptedTurn => ({
  tool_calls: [{ tool: "write", write_file: { path: "calc.py", content } }],
  reply: reply({ summary, changed_files: ["calc.py"], commit_message }),
});

const square = `${CALC_AT_BASE}

def square(a):
    return a * a
`;

let world: WorkflowWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

function pythonWorld(builderTurns: ScriptedTurn[]): WorkflowWorld {
  const made = new WorkflowWorld({
    agents: [{ name: "builder", turns: builderTurns }],
    quality: {
      test: {
        command: ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml={report_file}"],
        timeout_seconds: 120,
        env: { PYTHONDONTWRITEBYTECODE: "1" },
        report: "junit",
      },
    },
  });
  writeFileSync(path.join(made.sb.dir, "calc.py"), CALC_AT_BASE);
  writeFileSync(path.join(made.sb.dir, "test_calc.py"), TESTS);
  git(made.sb.dir, ["add", "calc.py", "test_calc.py"]);
  git(made.sb.dir, ["commit", "-q", "-m", "calc with a known bug"]);
  made.base = git(made.sb.dir, ["rev-parse", "HEAD"]).trim();
  world = made;
  return made;
}

interface TestRef {
  name: string;
  file: string | null;
  message?: string | null;
}
interface Verify {
  suite: string;
  passed: boolean;
  tests: { total: number; passed: number; failed: number; skipped: number } | null;
  failed_tests: TestRef[];
  pre_existing_failures: TestRef[];
  fixed_tests: TestRef[];
  pre_existing_only: boolean;
  tests_path: string | null;
}

/** The `VerifyOutput` envelopes of the run's suite phases, in order, from `sssf events --json`. */
async function verifies(made: WorkflowWorld, adwId: string): Promise<Verify[]> {
  const result = await made.run(["events", adwId, "--json", "--type", "log"]);
  const events = JSON.parse(result.stdout) as { payload: { envelope?: Verify } }[];
  return events.flatMap((event) => (event.payload.envelope?.suite ? [event.payload.envelope] : []));
}

const ref = (name: string) => ({ name, file: "test_calc" });

describe("per-test results against the base commit (pytest, JUnit XML)", () => {
  it("accepts a change that breaks nothing new, naming the pre-existing failure", async () => {
    const made = pythonWorld([
      write(square, "added square", "Add square"),
      write(square, "added square", "Add square"),
    ]);
    const result = await made.run(["run", "build-test", "add a square function"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(result.stdout).toContain("ACCEPTED");
    expect(result.stdout).toContain("test: 1 pre-existing failure, none new");
    // No fix round: the builder was asked once.
    expect(made.sb.agent("builder").sends()).toHaveLength(1);
    expect(made.commits(adwId)).toEqual(["Add square"]);
    // The terminal names the failing test, marked as failing at the base too.
    expect(result.stdout).toContain("✘ test_calc › test_known_bug (failed at base too)");

    const [verify] = await verifies(made, adwId);
    expect(verify).toMatchObject({
      passed: false,
      pre_existing_only: true,
      tests: { total: 3, passed: 2, failed: 1, skipped: 0 },
      failed_tests: [],
      pre_existing_failures: [ref("test_known_bug")],
      fixed_tests: [],
    });
    // The whole list is saved beside the suite's log.
    const saved = JSON.parse(readFileSync(String(verify?.tests_path), "utf8")) as { tests: TestRef[] };
    expect(saved.tests.map((t) => t.name).sort()).toEqual(["test_add", "test_known_bug", "test_mul"]);

    // The baseline's cache entry holds the failing tests at the base commit.
    const short = made.base.slice(0, 12);
    expect(result.stdout).toContain(`test at base ${short}: fails (exit 1), 1 failing test\n`);
    const cache = path.join(made.sb.dir, "adws/adw_data/baselines", made.base, "test.json");
    const entry = JSON.parse(readFileSync(cache, "utf8")) as Record<string, unknown>;
    expect(entry).toMatchObject({ failed_tests: [ref("test_known_bug")], report: { format: "junit" } });
    // An entry from before per-test reports (no failed_tests) is run again, not trusted.
    delete entry.failed_tests;
    writeFileSync(cache, JSON.stringify(entry));
    const again = await made.run(["run", "build-test", "add a square function"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`test at base ${short}: fails (exit 1), 1 failing test\n`);
    expect(JSON.parse(readFileSync(cache, "utf8"))).toMatchObject({ failed_tests: [ref("test_known_bug")] });
  });

  it("hands the fixing agent exactly the new failure, then reports the fixed pre-existing one", async () => {
    const brokenMul = CALC_AT_BASE.replace("return a * b", "return a + b");
    const bothFixed = CALC_AT_BASE.replace("return b - a", "return a - b");
    const fix: ScriptedTurn = {
      ...write(bothFixed, "fixed mul and sub", "Fix mul and sub"),
      match: "fail because of the change",
    };
    const made = pythonWorld([fix, write(brokenMul, "reworked calc", "Rework calc")]);
    const result = await made.run(["run", "build-test", "rework calc"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(made.phases(adwId)).toEqual([
      "request:success",
      "build:success",
      "test:fail",
      "fix:success",
      "test:success",
      "commit:success",
    ]);

    // The fix prompt lists the new failure and says the pre-existing one is not the agent's.
    const sends = made.sb.agent("builder").sends();
    expect(sends).toHaveLength(2);
    const prompt = sends[1]?.prompt ?? "";
    expect(prompt).toContain("These tests fail because of the change");
    expect(prompt).toContain("- test_calc › test_mul\n");
    expect(prompt).toMatch(
      /already failed at the run's base commit: they are not yours to fix[^\n]*\n- test_calc › test_known_bug/,
    );
    // Its previous envelope (rendered into the prompt) carries the same lists.
    const section = prompt.slice(prompt.indexOf("### previous_envelope"));
    const previous = JSON.parse(section.slice(section.indexOf("{"), section.indexOf("\n}\n") + 2)) as Verify;
    expect(previous.failed_tests.map((t) => t.name)).toEqual(["test_mul"]);
    expect(previous.failed_tests[0]?.message).toContain("mul(2, 3) is wrong");
    expect(previous.pre_existing_failures).toEqual([ref("test_known_bug")]);
    expect(result.stdout).toContain("✘ test_calc › test_mul\n");

    const [failed, fixed] = await verifies(made, adwId);
    expect(failed).toMatchObject({
      passed: false,
      pre_existing_only: false,
      failed_tests: [ref("test_mul")],
    });
    expect(fixed).toMatchObject({
      passed: true,
      tests: { total: 3, passed: 3, failed: 0, skipped: 0 },
      failed_tests: [],
      pre_existing_failures: [],
      fixed_tests: [ref("test_known_bug")],
    });
    // One line per phase that compared, though the phase asked the base twice (per test, then by exit code).
    expect(result.stdout.match(/test at base /g)).toHaveLength(1);
  });
});
