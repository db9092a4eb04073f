import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Sandbox } from "../helpers/sandbox.js";
import { attemptEvents, attemptTurn, choiceEvents, gitRepo, leftoverAttemptDirs } from "./best-of-world.js";

// Best-of-N outcomes through the real CLI (dist/: `npm run build` first) with exec agents whose
// attempts pass or fail in chosen orders.
process.env.SSSF_SANDBOX = "off";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

/** A repo-local workflow running one GenericOutput call as 3 attempts in `mode`. */
const PICK = (mode: string) => `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "pick",
  description: "Three attempts through the API",
  agents: ["builder"],
  async run(run, request) {
    const out = await run.agent(
      "pick",
      { owner: "builder", description: "Pick", bestOf: { attempts: 3, mode: "${mode}" } },
      (phase) => phase.call({ outputType: GenericOutput, prompt: request, previous: null }),
    );
    return run.finish({ accepted: true, reason: out.summary });
  },
});
`;

function writeWorkflow(source: string): void {
  const file = path.join(sb.dir, "adws/adw_pick.ts");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, source);
}

describe("best-of outcomes", () => {
  it("fails the phase naming each attempt's problem when none passes", async () => {
    sb.setup(
      [
        {
          name: "builder",
          turns: [
            attemptTurn(1, "a.txt", 1, { claimed: "nope.txt" }),
            { match_cwd: "attempt-2", reply: "no json at all" },
            attemptTurn(3, "c.txt", 1, { status: "fail" }),
          ],
        },
      ],
      { limits: { retries: 0, json_fix_attempts: 0 } },
    );
    gitRepo(sb);
    const result = await sb.run(["run", "build", "add a file", "--best-of", "3"]);
    expect(result.code).toBe(1);
    const output = result.stdout + result.stderr;
    expect(output).toMatch(
      /phase build failed: no attempt of 3 passed \(attempt 1: gate violations after 0 correction\(s\): diffMatchesClaims: [^|]+ \| attempt 2: [^|]*builder gave no valid BuildOutput[^|]* \| attempt 3: [^)]*attempt 3/,
    );
    expect(attemptEvents(sb).map((e) => [e.payload.status, e.payload.winner])).toEqual([
      ["failed", false],
      ["failed", false],
      ["failed", false],
    ]);
    expect(choiceEvents(sb)).toEqual([
      expect.objectContaining({
        name: "no attempt passed",
        payload: expect.objectContaining({ winner: null }),
      }),
    ]);
    const [phase] = sb.query<{ status: string }>("SELECT status FROM phases WHERE name = 'build'");
    expect(phase?.status).toBe("fail");
    expect(leftoverAttemptDirs(sb)).toEqual([]);
  });

  it("breaks a tie on changed lines by the lower cost", async () => {
    sb.setup([
      {
        name: "builder",
        turns: [
          attemptTurn(1, "a.txt", 2, { cost: 0.05 }),
          attemptTurn(2, "b.txt", 2, { cost: 0.01 }),
          attemptTurn(3, "c.txt", 2, { cost: 0.03 }),
        ],
      },
    ]);
    gitRepo(sb);
    const result = await sb.run(["run", "build", "add a file", "--best-of", "3"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(choiceEvents(sb)[0]?.payload).toMatchObject({
      winner: 2,
      reason: "lowest cost among 3 with 2 changed lines ($0.0100 vs $0.0300, $0.0500)",
    });
    const events = attemptEvents(sb);
    expect(events.map((e) => e.payload.cost_usd)).toEqual([0.05, 0.01, 0.03]);
    expect(events[0]!.payload.reason).toBe(
      "passed, but attempt 2 changed as many lines for less ($0.0100 vs $0.0500)",
    );
    // The phase's cost is every attempt's.
    const [phase] = sb.query<{ cost_usd: number }>("SELECT cost_usd FROM phases WHERE name = 'build'");
    expect(phase?.cost_usd).toBeCloseTo(0.09, 6);
  });

  it("runs the workflow's quality suite in each passing attempt's worktree: a failing suite loses", async () => {
    sb.setup(
      [
        {
          name: "builder",
          turns: [
            // The smallest change, but the suite (no bad.txt allowed) fails in its worktree.
            attemptTurn(1, "bad.txt", 1),
            attemptTurn(2, "good.txt", 3),
            attemptTurn(3, "fine.txt", 4),
          ],
        },
      ],
      {
        quality: { test: { command: ["sh", "-c", "test ! -e bad.txt || { echo bad.txt found; exit 1; }"] } },
      },
    );
    gitRepo(sb);
    const result = await sb.run(["run", "build-test", "add a file", "--best-of", "3"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const events = attemptEvents(sb);
    expect(events[0]!.payload).toMatchObject({
      status: "failed",
      check: { ok: false, summary: "test failed (exit 1): bad.txt found" },
      reason: "its check failed: test failed (exit 1): bad.txt found",
    });
    expect(events[1]!.payload).toMatchObject({ winner: true, check: { ok: true, summary: "test passed" } });
    expect(events[2]!.payload).toMatchObject({ status: "passed", winner: false });
    expect(choiceEvents(sb)[0]?.payload).toMatchObject({
      winner: 2,
      reason: "fewest changed lines (3 vs 4)",
    });
  });

  it('mode "first" keeps the first attempt to pass and stops the others', async () => {
    sb.setup([
      {
        name: "builder",
        turns: [
          { match_cwd: "attempt-1", reply: '{"status":"success","summary":"first one"}', delay_ms: 300 },
          { match_cwd: "attempt-2", hang: true },
          { match_cwd: "attempt-3", hang: true },
        ],
      },
    ]);
    gitRepo(sb);
    writeWorkflow(PICK("first"));
    const result = await sb.run(["run", "pick", "answer"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const events = attemptEvents(sb);
    expect(events.map((e) => [e.payload.status, e.payload.winner, e.payload.mode])).toEqual([
      ["passed", true, "first"],
      ["stopped", false, "first"],
      ["stopped", false, "first"],
    ]);
    expect(events[1]!.payload.reason).toBe("stopped: another attempt passed first");
    expect(choiceEvents(sb)[0]?.payload).toMatchObject({ winner: 1, mode: "first" });
    // The stopped attempts' agents were killed: no process is left running.
    expect(sb.query("SELECT pid FROM processes WHERE status = 'running'")).toEqual([]);
  });

  it("counts every attempt against the run's spend cap", async () => {
    sb.setup(
      [
        {
          name: "builder",
          turns: [
            attemptTurn(1, "a.txt", 1, { cost: 0.03 }),
            attemptTurn(2, "b.txt", 1, { cost: 0.03, delayMs: 200 }),
            attemptTurn(3, "c.txt", 1, { cost: 0.03, delayMs: 400 }),
          ],
        },
      ],
      { limits: { max_cost_usd: 0.05 } },
    );
    gitRepo(sb);
    const result = await sb.run(["run", "build", "add a file", "--best-of", "3"]);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(
      /phase build failed: budget (exceeded|exhausted): run max_cost_usd 0\.05/,
    );
    expect(choiceEvents(sb)[0]).toMatchObject({ name: "no attempt passed" });
    expect(leftoverAttemptDirs(sb)).toEqual([]);
  });

  it("refuses --best-of above limits.max_best_of, or on a workflow without a building phase, in one line (exit 2)", async () => {
    sb.setup([{ name: "builder", turns: [] }], { limits: { max_best_of: 2 } });
    gitRepo(sb);
    const over = await sb.run(["run", "build", "add a file", "--best-of", "3"]);
    expect(over.code).toBe(2);
    expect(over.stderr.trim()).toBe("sssf: --best-of: 3 attempts is outside 1…2 (limits.max_best_of 2)");
    const zero = await sb.run(["run", "build", "add a file", "--best-of", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr.trim().split("\n")).toHaveLength(1);
    const prompt = await sb.run(["run", "prompt", "hi", "--best-of", "2", "--agent", "builder"]);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr.trim()).toMatch(/^sssf: --best-of: workflow "prompt" has no building phase/);
    const restate = await sb.run(["run", "build", "add a file", "--best-of", "2", "--engine", "restate"]);
    expect(restate.code).toBe(2);
    expect(restate.stderr.trim()).toBe("sssf: --best-of: only with --engine local (docs/reliability.md)");
    expect(sb.agent("builder").sends()).toEqual([]);
  });
});
