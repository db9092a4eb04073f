/**
 * Best-of-N with the real pi against the fake model (`sssf run --fake-script`, e2e: `npm run build`
 * first): the fake's steps tell the attempts apart by the worktree pi names in its system prompt
 * (`match.anywhere: "attempt-<k>"`), so each attempt writes its own file; the smaller change wins.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "../code/fixtures.js";
import { adwIdFrom, envelopeJson, Sandbox } from "../helpers/sandbox.js";
import { piBinary } from "../runtimes/pi/pi-world.js";
import { attemptEvents, choiceEvents, gitRepo, leftoverAttemptDirs } from "./best-of-world.js";

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

/** Attempt `k`'s two model turns: write `lines` lines to `file`, then report it. */
function attemptSteps(k: number, file: string, lines: number): unknown[] {
  const content = Array.from({ length: lines }, (_, i) => `line ${i + 1} of attempt ${k}`).join("\n");
  const mine = `attempt-${k}`;
  return [
    {
      match: { anywhere: mine, hasTools: true, afterToolResult: false },
      writeFile: { path: file, content: `${content}\n` },
    },
    {
      match: { anywhere: mine, afterToolResult: true },
      reply: envelopeJson({ summary: `attempt ${k}`, changed_files: [file], commit_message: `add ${file}` }),
    },
  ];
}

describe("best-of-N with the real pi", () => {
  it("runs two attempts in their own worktrees and sessions; the one with fewer changed lines lands", async () => {
    const dir = path.join(sb.dir, "adws/adw_data/prompt_engineering/builder");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, "system.md"),
      "# builder\n\nDo the task, then reply with the JSON report.\n",
    );
    writeFileSync(path.join(dir, "user.md"), "# Task\n\n{{prompt}}\n");
    sb.writeConfig({
      sandbox: { mode: "off" },
      agents: [{ name: "builder", coding_agent: "pi", command: [piBinary], model: "fake/fake-model" }],
    });
    gitRepo(sb);
    const file = path.join(sb.agentsDir, "script.json");
    writeFileSync(
      file,
      JSON.stringify({
        steps: [...attemptSteps(1, "big.txt", 6), ...attemptSteps(2, "small.txt", 2)],
        fallback: "error",
      }),
    );
    const result = await sb.run(["run", "build", "add a file", "--best-of", "2", "--fake-script", file]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("best of 2: attempt 2 wins — fewest changed lines (2 vs 6)");
    const adwId = adwIdFrom(result.stdout);
    const branch = `sssf/build/${adwId}`;
    expect(git(sb.dir, "diff", "--name-only", "main", branch).trim()).toBe("small.txt");
    const events = attemptEvents(sb);
    expect(
      events.map((e) => [e.payload.attempt, e.payload.status, e.payload.winner, e.payload.changed_lines]),
    ).toEqual([
      [1, "passed", false, 6],
      [2, "passed", true, 2],
    ]);
    // Two pi sessions, one per attempt.
    expect(new Set(events.map((e) => e.payload.agent_session_id)).size).toBe(2);
    expect(choiceEvents(sb)).toHaveLength(1);
    expect(leftoverAttemptDirs(sb)).toEqual([]);
  });
});
