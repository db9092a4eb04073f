import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { adwIdFrom } from "../helpers/sandbox.js";
import { buggyBuild, fixTurn, git, goodBuild, reply, WorkflowWorld } from "./workflow-world.js";

/** A fix round's turn: rewrites `src/app.js` with `body` (each different, so the diff gate sees a change). */
const fixWith = (body: string): ScriptedTurn => ({
  match: "suite fails",
  tool_calls: [{ tool: "write", write_file: { path: "src/app.js", content: `${body}\n` } }],
  reply: reply({ summary: "tried again", changed_files: ["src/app.js"] }),
});

/** A GitHub token the suite prints: it must reach neither the terminal nor the log file. */
const TOKEN = `ghp_${"A1b2C3d4E5".repeat(3)}f6G7h8`;

/**
 * A suite that always fails (exit 1) with 80 numbered lines around two copies of `TOKEN`, appending one
 * line to `$COUNT_FILE` per run so the test can count how often it ran.
 */
const ALWAYS_FAILS = `import { appendFileSync } from "node:fs";
appendFileSync(process.env.COUNT_FILE, "ran\\n");
for (let i = 1; i <= 80; i++) {
  console.log("output line " + i);
  if (i === 5 || i === 75) console.log("auth ghp_" + "A1b2C3d4E5".repeat(3) + "f6G7h8");
}
console.error("FAIL the library's own test");
process.exit(1);
`;

/** Passes while `src/app.js` is missing (the base commit) or adds; fails on a wrong `add`. */
const PASSES_AT_BASE = `import { appendFileSync, existsSync, readFileSync } from "node:fs";
appendFileSync(process.env.COUNT_FILE, "ran\\n");
if (existsSync("src/app.js") && !readFileSync("src/app.js", "utf8").includes("return a + b")) {
  console.log("FAIL add(2, 3) expected 5");
  process.exit(1);
}
console.log("ok 1 add");
`;

let world: WorkflowWorld | undefined;
let scratch: string | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A world whose `test` suite is `script`, committed at the base, counting its runs in a file outside the repo. */
function worldWith(script: string, builderTurns: ScriptedTurn[]) {
  scratch = mkdtempSync(path.join(tmpdir(), "sssf-count-"));
  const countFile = path.join(scratch, "count");
  writeFileSync(countFile, "");
  const made = new WorkflowWorld({
    agents: [{ name: "builder", turns: builderTurns }],
    quality: {
      test: { command: ["node", "suite.mjs"], timeout_seconds: 60, env: { COUNT_FILE: countFile } },
    },
  });
  writeFileSync(path.join(made.sb.dir, "suite.mjs"), script);
  git(made.sb.dir, ["add", "suite.mjs"]);
  git(made.sb.dir, ["commit", "-q", "-m", "the suite"]);
  made.base = git(made.sb.dir, ["rev-parse", "HEAD"]).trim();
  world = made;
  return { world: made, runs: () => readFileSync(countFile, "utf8").split("\n").filter(Boolean).length };
}

interface EventJson {
  type: string;
  name: string;
  payload: Record<string, unknown>;
}

describe("a failing suite's output, its log and its baseline", () => {
  it("build-test stops without fix rounds when the suite already fails at the base commit, and says so", async () => {
    const { world, runs } = worldWith(ALWAYS_FAILS, [goodBuild, goodBuild]);
    const result = await world.run(["run", "build-test", "add an add function"]);
    expect(result.code).toBe(1);
    const adwId = adwIdFrom(result.stdout);
    const short = world.base.slice(0, 12);

    // No fix round: the builder was sent the build only, and the suite ran twice (after the build, at the base).
    expect(world.sb.agent("builder").sends()).toHaveLength(1);
    expect(world.phases(adwId)).toEqual(["request:success", "build:success", "test:fail"]);
    expect(runs()).toBe(2);
    expect(result.stdout).toContain("NOT ACCEPTED");
    expect(result.stdout).toContain(`test failing before any change (baseline at ${short}`);
    expect(result.stdout).toContain(`test at base ${short}: fails (exit 1)`);

    // The terminal: after the ✘ line, the tail (its last 30 lines) and where the whole log is.
    const lines = result.stdout.split("\n");
    const failed = lines.findIndex((line) => line.startsWith("✘ 03 test"));
    expect(failed).toBeGreaterThan(0);
    const after = lines.slice(failed + 1, failed + 33);
    expect(after[0]).toContain("test output, last 30 lines:");
    expect(after.slice(1, 31).every((line) => line.startsWith("   │ "))).toBe(true);
    expect(after[30]).toBe("   │ FAIL the library's own test");
    expect(after[1]).not.toContain("output line 1\n");
    expect(result.stdout).not.toContain("│ output line 40");
    const logLine = after[31] ?? "";
    expect(logLine).toMatch(
      /^ {3}full log: adws\/adw_data\/sessions\/[0-9a-f]{8}\/code\/p03-test\.test\.log$/,
    );
    expect(result.stdout).toContain("[redacted:github-pat]");
    expect(result.stdout + result.stderr).not.toContain(TOKEN);

    // The log file holds the whole output, longer than the tail, redacted.
    const logPath = path.join(world.sb.dir, logLine.replace("   full log: ", ""));
    const log = readFileSync(logPath, "utf8");
    expect(log).toContain("output line 1\n");
    expect(log).toContain("output line 40\n");
    expect(log).toContain("FAIL the library's own test");
    expect(log.split("\n").length).toBeGreaterThan(60);
    expect(log).not.toContain(TOKEN);
    expect(log).toContain("auth [redacted:github-pat]");

    // The envelope and the `log` event name the file; events --json gives payloads as objects.
    const events = JSON.parse(
      (await world.run(["events", adwId, "--json", "--type", "log"])).stdout,
    ) as EventJson[];
    const suiteEvent = events.find((e) => e.name === "test: failed (exit 1)");
    expect(typeof suiteEvent?.payload).toBe("object");
    expect(suiteEvent?.payload.log_path).toBe(logPath);
    expect((suiteEvent?.payload.envelope as { log_path?: string } | undefined)?.log_path).toBe(logPath);
    const baselineEvent = events.find((e) => e.name.startsWith("test at base"));
    const baseline = baselineEvent?.payload.baseline as Record<string, unknown>;
    expect(baseline).toMatchObject({
      suite: "test",
      commit: world.base,
      passed: false,
      exit_code: 1,
      cached: false,
    });
    expect(existsSync(String(baseline.log_path))).toBe(true);
    expect(readFileSync(String(baseline.log_path), "utf8")).not.toContain(TOKEN);
    const envelope = JSON.parse(
      readFileSync(path.join(world.sb.sessionDir(adwId), "code", "p03-test.envelope.json"), "utf8"),
    ) as { log_path: string };
    expect(envelope.log_path).toBe(logPath);
    // The baseline's worktree is gone again.
    expect(git(world.sb.dir, ["worktree", "list", "--porcelain"])).not.toContain(".baseline-worktrees");

    // A second run from the same commit answers the baseline from the cache: the suite runs once more only.
    const again = await world.run(["run", "build-test", "add an add function"]);
    expect(again.code).toBe(1);
    expect(runs()).toBe(3);
    expect(world.sb.agent("builder").sends()).toHaveLength(2);
    expect(again.stdout).toContain(`test at base ${short}: fails (exit 1) (cached)`);
    expect(again.stdout).toContain(`test failing before any change (baseline at ${short}`);
  });

  it("a suite that passes at the base commit and fails after the build still gets its fix rounds", async () => {
    const { world, runs } = worldWith(PASSES_AT_BASE, [fixTurn, buggyBuild]);
    const result = await world.run(["run", "build-test", "add an add function"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "build:success",
      "test:fail",
      "fix:success",
      "test:success",
      "commit:success",
    ]);
    expect(world.sb.agent("builder").sends()).toHaveLength(2);
    // After the build, at the base, after the fix.
    expect(runs()).toBe(3);
    expect(result.stdout).toContain(`test at base ${world.base.slice(0, 12)}: passes`);
    // The fix prompt named the whole log.
    expect(world.sb.agent("builder").sends()[1]?.prompt).toMatch(
      /its whole output in \S+p03-test\.test\.log/,
    );
  });

  it("quality.<suite>.baseline: false spends the fix rounds without a baseline", async () => {
    const { world, runs } = worldWith(ALWAYS_FAILS, [fixWith("// one"), fixWith("// two"), goodBuild]);
    const config = path.join(world.sb.dir, "adws/adw_sssf_config/sssf.config.yaml");
    const parsed = JSON.parse(readFileSync(config, "utf8")) as { quality: { test: Record<string, unknown> } };
    parsed.quality.test.baseline = false;
    writeFileSync(config, JSON.stringify(parsed, null, 2));
    git(world.sb.dir, ["commit", "-q", "-am", "no baseline"]);
    const result = await world.run(["run", "build-test", "add an add function"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("tests still fail after 2 fix(es)");
    expect(result.stdout).not.toContain("test at base");
    // After the build and after each of the two fixes.
    expect(runs()).toBe(3);
    expect(world.sb.agent("builder").sends()).toHaveLength(3);
  });
});
