import { afterEach, describe, expect, it } from "vitest";
import { type MarkdownResultEnvelope, parseMarkdownResult } from "../../src/envelope/markdown-parse.js";
import { gates, vagueAdviceProblem } from "../../src/gates/index.js";
import { makeTempDir, removeTempDir, writeFiles } from "../code/fixtures.js";
import {
  INIT_WITH_ENGRAM,
  PROPOSAL_CREATED,
  reportText,
  VERIFICATION_FAILED,
} from "../envelope/markdown-seed-examples.js";
import { gateContext } from "./gate-context.js";

let dir = "";
afterEach(() => {
  if (dir !== "") removeTempDir(dir);
  dir = "";
});

/** The test's one scratch repo (made on first use), with `files` written into it. */
function repo(files: Record<string, string> = {}): string {
  if (dir === "") dir = makeTempDir("markdown-gates");
  writeFiles(dir, files);
  return dir;
}

function report(text: string): MarkdownResultEnvelope {
  const parsed = parseMarkdownResult(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.envelope;
}

const head = (status: string) => `## Phase\n**Status**: ${status}\n`;

describe("statusConsistent", () => {
  it("passes the seed's three examples", async () => {
    const checks = await Promise.all(
      [PROPOSAL_CREATED, VERIFICATION_FAILED, INIT_WITH_ENGRAM].map(async (text) =>
        (await gates.statusConsistent.run(report(text), gateContext(repo()))).checks.map((c) => [
          c.ok,
          c.note,
        ]),
      ),
    );
    expect(checks).toEqual([
      [
        [true, "success for success"],
        [true, "success, no CRITICAL risk"],
      ],
      [
        [true, "fail for failure"],
        [true, "failure blocked by 2 CRITICAL risks"],
      ],
      [
        [true, "success for success"],
        [true, "success, no CRITICAL risk"],
      ],
    ]);
  });

  it("success with CRITICAL risks: one violation per CRITICAL risk; WARNINGs are fine", async () => {
    const envelope = report(
      reportText({
        risks: "### Risks\n- **CRITICAL**: data loss\n- **WARNING**: slow\n- CRITICAL: no backup\n",
      }),
    );
    const result = await gates.statusConsistent.run(envelope, gateContext(repo()));
    expect(result.violations).toEqual([
      'CRITICAL risk "data loss": reported with status success: resolve it, or report failure',
      'CRITICAL risk "no backup": reported with status success: resolve it, or report failure',
    ]);
  });

  it("warning must list at least one risk", async () => {
    const bare = await gates.statusConsistent.run(
      report(reportText({ head: head("warning") })),
      gateContext(repo()),
    );
    expect(bare.violations).toEqual([
      "risks: status warning lists no risk: name the concern under ### Risks, or report success",
    ]);
    const listed = await gates.statusConsistent.run(
      report(reportText({ head: head("warning"), risks: "### Risks\n- SUGGESTION: rename it\n" })),
      gateContext(repo()),
    );
    expect(listed.ok).toBe(true);
    expect(listed.checks.at(-1)?.note).toBe("warning with 1 risk");
  });

  it("failure must say what blocks it: a CRITICAL risk or a specific Next Recommended naming the blocker", async () => {
    const failure = (next: string, risks = "None.") =>
      report(
        reportText({
          head: head("failure"),
          next: `### Next Recommended\n${next}\n`,
          risks: `### Risks\n${risks}\n`,
        }),
      );
    const run = async (envelope: MarkdownResultEnvelope) =>
      (await gates.statusConsistent.run(envelope, gateContext(repo()))).checks.at(-1);

    expect(await run(failure("Blocked: resolve open questions in design before proceeding"))).toEqual({
      item: "failure",
      ok: true,
      note: "failure, Next Recommended names the blocker",
    });
    expect(await run(failure("Fix the failing test in `test/a.test.ts`, then re-verify"))).toMatchObject({
      ok: true,
    });
    expect(await run(failure("Try again later."))).toMatchObject({ ok: false, item: "failure" });
    expect(await run(failure("Fix it"))).toMatchObject({ ok: false });
    expect(await run(failure("Continue.", "- **WARNING**: flaky"))).toMatchObject({ ok: false });
    expect(await run(failure("Continue.", "- **CRITICAL**: the build is red"))).toMatchObject({
      ok: true,
      note: "failure blocked by 1 CRITICAL risk",
    });
  });

  it("status and warning must agree with the contract word", async () => {
    const envelope = { ...report(PROPOSAL_CREATED), status: "fail", warning: true };
    const result = await gates.statusConsistent.run(envelope, gateContext(repo()));
    expect(result.violations).toEqual([
      'status: "fail" but the report says success: expected "success"',
      "warning: is true but the report says success",
    ]);
  });

  it("works on an envelope without result_status, deriving it from status", async () => {
    const result = await gates.statusConsistent.run(
      { status: "fail", next_recommended: "" },
      gateContext(repo()),
    );
    expect(result.violations).toEqual([
      'failure: status failure says nothing about what blocks it: add a CRITICAL risk, or say in Next Recommended what blocks the phase ("Blocked: …", "Fix … before …")',
    ]);
  });
});

describe("nextRecommendedSpecific", () => {
  it.each([
    "",
    "   ",
    "continue",
    "Continue.",
    "PROCEED!",
    "next",
    "N/A",
    "none",
    "TBD",
    "Keep going",
    "Do the next phase.",
    "Proceed with the next step as planned.",
    "Go ahead",
    "Review",
    "Run tests",
    "Continue implementation",
  ])("rejects %j", async (advice) => {
    const result = await gates.nextRecommendedSpecific.run({ next_recommended: advice }, gateContext(repo()));
    expect(result.ok).toBe(false);
    expect(result.checks).toHaveLength(1);
    expect(result.checks[0]?.item).toBe("next_recommended");
  });

  it.each([
    "Ready for specs (sdd-spec) or design (sdd-design). Recommend running both in parallel.",
    "Fix failing tests in `src/theme/__tests__/toggle.test.ts`, then re-verify.",
    "Ready for /sdd-explore <topic> or /sdd-new <change-name>.",
    "Blocked: resolve open questions in design before proceeding",
    "Archive the change",
    "Run sdd-apply",
    "`npm test`",
  ])("accepts %j", async (advice) => {
    const result = await gates.nextRecommendedSpecific.run({ next_recommended: advice }, gateContext(repo()));
    expect(result.checks).toEqual([
      { item: "next_recommended", ok: true, note: `specific: ${JSON.stringify(advice)}` },
    ]);
  });

  it("says why", () => {
    expect(vagueAdviceProblem(undefined)).toBe("is empty: say what should happen next");
    expect(vagueAdviceProblem("Keep going!")).toBe(
      '"Keep going!" is vague: name the phase, file, command or blocker that comes next',
    );
    expect(vagueAdviceProblem("Run tests")).toBe(
      '"Run tests" is too short to be specific (2 words, no file, command or phase named)',
    );
  });
});

describe("artifacts as repo paths or observation ids", () => {
  it("artifactsExist checks an observation id's syntax only", async () => {
    const root = repo({ "openspec/changes/x/proposal.md": "# Proposal\n" });
    const result = await gates.artifactsExist.run(
      { artifacts: ["#obs_12345", "openspec/changes/x/proposal.md", "#obs_", "#obs_a b", "#observation"] },
      gateContext(root),
    );
    const bad = "not a valid observation id: #obs_ followed by letters, digits, _ or -";
    expect(result.checks).toEqual([
      { item: "#obs_12345", ok: true, note: "observation id, not a file" },
      { item: "openspec/changes/x/proposal.md", ok: true, note: "exists, 11 bytes" },
      { item: "#obs_", ok: false, note: bad },
      { item: "#obs_a b", ok: false, note: bad },
      { item: "#observation", ok: false, note: bad },
    ]);
  });

  it("filesNonEmpty passes observation ids once and still checks files", async () => {
    const root = repo({ "a.md": "" });
    const result = await gates.filesNonEmpty.run(
      { artifacts: ["#obs_abc123", "#obs_abc123", "a.md"] },
      gateContext(root),
    );
    expect(result.checks).toEqual([
      { item: "#obs_abc123", ok: true, note: "observation id, not a file" },
      { item: "a.md", ok: false, note: "empty file" },
    ]);
  });

  it("the seed's engram report passes both artifact gates", async () => {
    const envelope = report(INIT_WITH_ENGRAM);
    const context = gateContext(repo());
    expect((await gates.artifactsExist.run(envelope, context)).ok).toBe(true);
    expect((await gates.filesNonEmpty.run(envelope, context)).ok).toBe(true);
  });
});
