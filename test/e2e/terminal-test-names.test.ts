import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "../code/fixtures.js";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { runOnTerminal, screen } from "../helpers/terminal.js";

/** The failing tests a suite's per-test report names, on every terminal: live, piped, through sssf tail. */

const SECRET = "sk-ant-api03-TESTNAMESECRET0123456789abcdefghijklmn";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

/** A repo workflow: an agent, then the `test` suite. */
const WORKFLOW = `import { defineWorkflow, GenericOutput } from "sssf";

export default defineWorkflow({
  name: "namedtests",
  description: "An agent, then a suite with a per-test report",
  agents: ["builder"],
  suites: ["test"],
  async run(run, request) {
    await run.agent("build", { owner: "builder", description: "Build it" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request, previous: null }),
    );
    const verify = await run.code("test", { owner: "quality", description: "Run the suite" }, (phase) =>
      phase.runSuite("test"),
    );
    return run.finish({ accepted: verify.passed, reason: verify.summary });
  },
});
`;

/**
 * A TAP suite on stdout: one pass, a nested failure that is there at the base commit too, and a
 * failure (its name holding a secret) once the agent wrote `built.txt`.
 */
const TAP_SUITE = `const built = require("node:fs").existsSync("built.txt");
console.log(["TAP version 13", "ok 1 - adds", "# Subtest: cart", "    not ok 1 - totals › with tax", "    1..1", "not ok 2 - cart", (built ? "not ok" : "ok") + " 3 - key ${SECRET}", "1..3"].join("\\n"));
process.exit(1);`;

function setUp(): void {
  const turn = {
    tool_calls: [{ tool: "write", write_file: { path: "built.txt", content: "yes\n" } }],
    reply: envelopeJson({ summary: "built" }),
    repeat: true,
  };
  sb.setup([{ name: "builder", turns: [turn] }], {
    quality: { test: { command: [process.execPath, "-e", TAP_SUITE], report: "tap" } },
  });
  writeFileSync(path.join(sb.dir, "adws/adw_namedtests.ts"), WORKFLOW);
  git(sb.dir, "init", "-q");
  git(sb.dir, "add", "-A");
  git(sb.dir, "commit", "-q", "-m", "start");
}

function expectNames(text: string): void {
  const lines = text.split("\n");
  const end = lines.findIndex((line) => line.startsWith("✘ 02 test"));
  expect(lines[end], text).toMatch(/test: failed \(exit 1\): 2 of 3 tests failed \(1 new, 1 pre-existing\)$/);
  expect(lines.slice(end + 1, end + 4)).toEqual([
    "   test: 2 failing tests:",
    "   ✘ key [redacted:anthropic-api-key]",
    "   ✘ cart > totals › with tax (failed at base too)",
  ]);
  expect(text).not.toContain(SECRET);
}

describe("a suite's failing tests by name", () => {
  it("live on a terminal, piped, and through sssf tail", async () => {
    setUp();
    const live = await runOnTerminal(sb.dir, ["run", "namedtests", "make it"], {}, 100);
    expect(live.code, live.stdout).toBe(1);
    const shown = screen(live.stdout);
    expectNames(shown);
    const adwId = adwIdFrom(shown);
    const piped = await sb.run(["tail", adwId, "--from-start"]);
    expectNames(piped.stdout);
    const tailed = await runOnTerminal(sb.dir, ["tail", adwId, "--from-start"], {}, 100);
    expectNames(screen(tailed.stdout));
    const run = await sb.run(["run", "namedtests", "make it again"]);
    expectNames(run.stdout);
  });
});
