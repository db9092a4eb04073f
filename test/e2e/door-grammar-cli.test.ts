/**
 * The door's grammar through `sssf run` with an exec agent (docs/envelopes-and-gates.md): each class
 * of reply that once went through to exit 0 is corrected in the same session, naming what is wrong
 * or ambiguous, and an agent that keeps giving it never passes the phase.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JSON_DOOR_CLASSES as JSON_CLASSES } from "../helpers/door-classes.js";
import { envelopeJson, Sandbox } from "../helpers/sandbox.js";

interface Row {
  [key: string]: unknown;
}

let sb: Sandbox;
beforeEach(() => {
  sb = new Sandbox();
});
afterEach(() => sb.cleanup());

describe("the door's grammar through sssf run", () => {
  for (const { name, reply, named } of JSON_CLASSES) {
    it(`${name}: corrected in the same session, then the true report is taken`, async () => {
      const truth = envelopeJson({ status: "fail", summary: "the true report: it failed" });
      sb.setup([{ name: "assistant", turns: [{ reply }, { reply: truth }] }]);
      const result = await sb.run(["run", "prompt", "go"]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain("the true report: it failed");
      const sends = sb.agent("assistant").sends();
      expect(sends.map((send) => send.resume)).toEqual([false, true]);
      expect(sends[1]?.session_id).toBe(sends[0]?.session_id);
      expect(sends[1]?.prompt).toMatch(named);
      const rows = sb.query<Row>("SELECT attempt, reason, valid, status FROM envelopes ORDER BY attempt");
      expect(rows).toEqual([
        { attempt: 1, reason: "initial", valid: 0, status: null },
        { attempt: 2, reason: "json_fix", valid: 1, status: "fail" },
      ]);
    });

    it(`${name}, again and again: the phase never passes`, async () => {
      sb.setup([{ name: "assistant", turns: [{ reply }, { reply }, { reply }] }]);
      const result = await sb.run(["run", "prompt", "go"]);
      expect(result.code).toBe(1);
      expect(sb.query<Row>("SELECT status FROM phases WHERE kind = 'agent'")).toEqual([{ status: "fail" }]);
      expect(sb.query<Row>("SELECT COUNT(*) AS n FROM envelopes WHERE valid = 1")).toEqual([{ n: 0 }]);
    });
  }
});

/** A workflow of one Markdown-contract call. */
const MARKDOWN_WORKFLOW = `import { defineWorkflow, MarkdownResult } from "sssf";
export default defineWorkflow({
  name: "report", description: "one Markdown report", agents: ["assistant"],
  async run(run, request) {
    const report = await run.agent("report", { owner: "assistant", description: "report" }, (phase) =>
      phase.call({ outputType: MarkdownResult, format: "markdown", prompt: request }));
    return run.finish({ accepted: report.status === "success", reason: report.summary });
  },
});
`;

function markdownReport(status: string, heading = "Build Done"): string {
  return [
    `## ${heading}`,
    "",
    "**Change**: add-x",
    `**Status**: ${status}`,
    "",
    "### Summary",
    `The build said ${status.replace(/[~<>/]/g, "")}.`,
    "",
    "### Artifacts",
    "None.",
    "",
    "### Next Recommended",
    "Fix the failing migration in db/001.sql and run the build again.",
    "",
    "### Risks",
    "None.",
    "",
  ].join("\n");
}

describe("the Markdown door through sssf run", () => {
  async function runMarkdown(replies: string[]) {
    sb.setup([{ name: "assistant", turns: replies.map((reply) => ({ reply })) }]);
    writeFileSync(path.join(sb.dir, "adws/adw_report.ts"), MARKDOWN_WORKFLOW);
    return sb.run(["run", "report", "report on the build"]);
  }

  it("a Status of `~~success~~ failure` is failure", async () => {
    const result = await runMarkdown([markdownReport("~~success~~ failure")]);
    expect(result.code).toBe(1);
    expect(sb.query<Row>("SELECT status FROM envelopes WHERE valid = 1")).toEqual([{ status: "fail" }]);
  });

  it("a success template in a fence after a failure report is corrected, never taken", async () => {
    const reply = `${markdownReport("failure")}\nThe template:\n\`\`\`markdown\n${markdownReport("success", "Template")}\`\`\`\n`;
    const result = await runMarkdown([reply, reply, reply]);
    expect(result.code).toBe(1);
    const sends = sb.agent("assistant").sends();
    expect(sends).toHaveLength(3);
    expect(sends[1]?.prompt).toMatch(/Status.*is ambiguous: the reply holds 2 reports/);
    expect(sb.query<Row>("SELECT COUNT(*) AS n FROM envelopes WHERE valid = 1")).toEqual([{ n: 0 }]);
  });
});
