import { describe, expect, it } from "vitest";
import { problemsOf, sections } from "./markdown-expect.js";
import { reportText } from "./markdown-seed-examples.js";

describe("parseMarkdownResult is strict on the required parts", () => {
  it("no report at all names every required part", () => {
    expect(sections(problemsOf("I could not finish, sorry."))).toEqual([
      "heading",
      "Status",
      "Summary",
      "Artifacts",
      "Next Recommended",
    ]);
  });

  it.each([
    ["summary", "Summary"],
    ["artifacts", "Artifacts"],
    ["next", "Next Recommended"],
  ] as const)("a missing %s section is named", (part, section) => {
    const problems = problemsOf(reportText({ [part]: "" }));
    expect(problems).toEqual([{ section, message: expect.stringMatching(/^missing: add/) }]);
  });

  it("a missing heading", () => {
    const text = reportText().replace("## Proposal Created\n", "");
    expect(problemsOf(text)).toEqual([
      { section: "heading", message: expect.stringContaining("## <Phase Name>") },
    ]);
  });

  it("a heading with one #", () => {
    expect(problemsOf(reportText().replace("## Proposal", "# Proposal"))).toEqual([
      { section: "heading", message: "`# Proposal Created` has one #: write `## Proposal Created`" },
    ]);
  });

  it("a missing Status", () => {
    const problems = problemsOf(reportText({ head: "## Proposal Created\n**Change**: add-dark-mode\n" }));
    expect(sections(problems)).toEqual(["Status"]);
  });

  it.each(["done", "success | warning | failure", "successful", ""])("an invalid Status %j", (word) => {
    const problems = problemsOf(reportText({ head: `## Proposal Created\n**Status**: ${word}\n\n` }));
    expect(sections(problems)).toEqual(["Status"]);
  });

  it("two Status lines that disagree", () => {
    const problems = problemsOf(reportText({ head: "## X\n**Status**: success\nStatus: failure\n" }));
    expect(problems[0]?.message).toContain("different values (success, failure)");
  });

  it("empty Summary, Artifacts and Next Recommended are each named", () => {
    const problems = problemsOf(
      reportText({
        summary: "### Summary\n\n",
        artifacts: "### Artifacts\n",
        next: "### Next Recommended\n   \n",
      }),
    );
    expect(sections(problems)).toEqual(["Summary", "Artifacts", "Next Recommended"]);
    expect(problems.every((problem) => problem.message.startsWith("is empty"))).toBe(true);
  });

  it("a duplicated section", () => {
    const problems = problemsOf(`${reportText()}\n### Summary\nAgain.\n`);
    expect(problems).toEqual([
      { section: "Summary", message: "appears 2 times: keep one `### Summary` section" },
    ]);
  });

  it("risk items without a severity are named, the others kept", () => {
    const problems = problemsOf(
      reportText({
        risks:
          "### Risks\n- **WARNING**: fine\n- Warning signs in the logs\n- the cache is stale\n- CRITICAL:\n",
      }),
    );
    expect(problems).toEqual([
      {
        section: "Risks",
        message:
          'item 2 ("Warning signs in the logs") has no severity: start it with **CRITICAL**:, **WARNING**: or **SUGGESTION**:',
      },
      { section: "Risks", message: expect.stringContaining('item 3 ("the cache is stale") has no severity') },
      { section: "Risks", message: 'item 4 ("CRITICAL:") has a severity but no text: say what the risk is' },
    ]);
  });

  it("every problem at once", () => {
    const text = "## Half done\n\n### Summary\n\n### Risks\n- the cache might be stale\n";
    expect(sections(problemsOf(text))).toEqual([
      "Status",
      "Summary",
      "Artifacts",
      "Next Recommended",
      "Risks",
    ]);
  });
});
