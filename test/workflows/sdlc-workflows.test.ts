import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom } from "../helpers/sandbox.js";
import {
  approve,
  buggyBuild,
  documenterTurns,
  fixTurn,
  goodBuild,
  plannerTurns,
  reply,
  WorkflowWorld,
} from "./workflow-world.js";

let world: WorkflowWorld | undefined;
afterEach(() => world?.cleanup());

describe("simple-sdlc", () => {
  it("plans, builds, fails a test once, fixes, is approved, documents, and lands three commits", async () => {
    world = new WorkflowWorld({
      agents: [
        { name: "planner", turns: plannerTurns },
        { name: "builder", turns: [fixTurn, buggyBuild] },
        { name: "reviewer", turns: [approve] },
        { name: "documenter", turns: documenterTurns },
      ],
    });
    const result = await world.run(["run", "simple-sdlc", "add an add function"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "plan:success",
      "commit-plan:success",
      "build:success",
      "test:fail",
      "fix:success",
      "test:success",
      "changes:success",
      "review:success",
      "commit-code:success",
      "document:success",
      "commit-docs:success",
    ]);
    expect(world.commits(adwId)).toEqual([
      "Plan the add function",
      "Add the add function",
      "Document the add function",
    ]);
    expect(world.commitFiles(adwId, 0)).toEqual(["specs/add.md"]);
    expect(world.commitFiles(adwId, 1)).toEqual(["src/app.js"]);
    expect(world.commitFiles(adwId, 2)).toEqual(["docs/add.md"]);

    // The failing suite's output tail reached the fix prompt through a VerifyOutput envelope.
    const fixSend = world.sb.agent("builder").sends()[1];
    expect(fixSend?.prompt).toContain('"suite": "test"');
    expect(fixSend?.prompt).toContain("FAIL add(2, 3) expected 5");
    // The reviewer saw the captured change, whose diff is saved in the session directory.
    const reviewPrompt = world.sb.agent("reviewer").sends()[0]?.prompt ?? "";
    expect(reviewPrompt).toContain('"diff_path"');
    const diffPath = /"diff_path": "([^"]+)"/.exec(reviewPrompt)?.[1] ?? "";
    expect(diffPath.startsWith(world.sb.sessionDir(adwId))).toBe(true);
    expect(existsSync(diffPath)).toBe(true);

    const envelopes = world.sb.query<{ agent: string; output_type: string; valid: number }>(
      `SELECT e.agent, e.output_type, e.valid FROM envelopes e JOIN phases p ON p.id = e.phase_id
       WHERE e.adw_id = ? AND p.kind = 'agent' ORDER BY e.created_at, e.id`,
      adwId,
    );
    expect(envelopes.map((e) => `${e.agent}:${e.output_type}:${e.valid}`)).toEqual([
      "planner:PlanOutput:1",
      "builder:BuildOutput:1",
      "builder:BuildOutput:1",
      "reviewer:ReviewOutput:1",
      "documenter:DocumentOutput:1",
    ]);
    // The code phases' envelopes go through the same door: rows of their own, accepted when a success.
    const fromCode = world.sb.query<{ output_type: string; accepted: number }>(
      `SELECT e.output_type, e.accepted FROM envelopes e JOIN phases p ON p.id = e.phase_id
       WHERE e.adw_id = ? AND p.kind = 'code' ORDER BY e.created_at, e.id`,
      adwId,
    );
    const seen = fromCode.map((e) => `${e.output_type}:${e.accepted}`);
    // The suite that failed once is not accepted; the passing re-test and the captured changes are.
    expect(seen).toContain("VerifyOutput:0");
    expect(seen).toContain("VerifyOutput:1");
    expect(seen).toContain("ChangesOutput:1");
  });

  it("revises after a rejected review, re-tests the revision, and commits only once approved", async () => {
    world = new WorkflowWorld({
      agents: [
        { name: "planner", turns: plannerTurns },
        {
          name: "builder",
          turns: [
            {
              match: "did not approve",
              tool_calls: [
                {
                  tool: "write",
                  write_file: {
                    path: "src/app.js",
                    content: "/** Sums two numbers. */\nexport function add(a, b) {\n  return a + b;\n}\n",
                  },
                },
              ],
              reply: reply({ summary: "added the doc comment", changed_files: ["src/app.js"] }),
            },
            goodBuild,
          ],
        },
        {
          name: "reviewer",
          turns: [
            {
              reply: reply({
                summary: "missing doc comment",
                approved: false,
                findings: [{ requirement: "documented", met: false, evidence: "no comment" }],
                blocking: ["add a doc comment to add"],
              }),
            },
            { reply: reply({ summary: "ok now", approved: true, findings: [], blocking: [] }) },
          ],
        },
        { name: "documenter", turns: documenterTurns },
      ],
    });
    const result = await world.run(["run", "simple-sdlc", "add an add function"]);
    expect(result.code).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "plan:success",
      "commit-plan:success",
      "build:success",
      "test:success",
      "changes:success",
      "review:success",
      "revise:success",
      "test:success",
      "changes:success",
      "review:success",
      "commit-code:success",
      "document:success",
      "commit-docs:success",
    ]);
    expect(world.commits(adwId)).toEqual([
      "Plan the add function",
      "Add the add function",
      "Document the add function",
    ]);
    // The second review's prompt carries the new diff, which includes the revision.
    const secondReview = world.sb.agent("reviewer").sends()[1]?.prompt ?? "";
    const diffPath = /"diff_path": "([^"]+)"/.exec(secondReview)?.[1] ?? "";
    expect(path.basename(diffPath)).toMatch(/^p10-changes\.diff$/);
  });
});
