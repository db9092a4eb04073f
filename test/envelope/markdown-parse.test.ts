import { describe, expect, it } from "vitest";
import { parseMarkdownResult } from "../../src/envelope/markdown-parse.js";
import { envelopeOf, problemsOf } from "./markdown-expect.js";
import {
  BASE_ENVELOPE,
  INIT_WITH_ENGRAM,
  PROPOSAL_CREATED,
  reportText,
  VERIFICATION_FAILED,
} from "./markdown-seed-examples.js";

describe("parseMarkdownResult on the seed's examples", () => {
  it("Proposal Created", () => {
    expect(envelopeOf(PROPOSAL_CREATED)).toEqual({
      status: "success",
      summary:
        "Proposal defines UI theme switching with localStorage persistence. Scope includes 3 core deliverables (theme toggle, CSS variables, persistence). Risk level: Low.",
      artifacts: ["openspec/changes/add-dark-mode/proposal.md"],
      notes_for_next_agent:
        "Ready for specs (sdd-spec) or design (sdd-design). Recommend running both in parallel.",
      phase: "Proposal Created",
      change: "add-dark-mode",
      result_status: "success",
      warning: false,
      next_recommended:
        "Ready for specs (sdd-spec) or design (sdd-design). Recommend running both in parallel.",
      risks: [],
    });
  });

  it("Verification Failed", () => {
    const next =
      "Fix failing tests in `src/theme/__tests__/toggle.test.ts`, then re-verify. Do NOT proceed to archive.";
    expect(envelopeOf(VERIFICATION_FAILED)).toEqual({
      status: "fail",
      summary:
        "Verification failed: 3 of 8 spec scenarios are UNTESTED. Build passed, but 2 tests failed. Cannot archive until tests are fixed.",
      artifacts: ["openspec/changes/add-dark-mode/verify-report.md"],
      notes_for_next_agent: next,
      phase: "Verification Report",
      change: "add-dark-mode",
      result_status: "failure",
      warning: false,
      next_recommended: next,
      risks: [
        {
          severity: "CRITICAL",
          text: '`ThemeToggle` component throws error when localStorage is unavailable (scenario "Graceful fallback" UNTESTED)',
        },
        { severity: "CRITICAL", text: "Test \"persists theme choice\" expects 'dark' but got 'light'" },
        { severity: "WARNING", text: "Coverage is 67%, below recommended 80% threshold" },
      ],
    });
  });

  it("Init with Engram: Project is not a change, the observation id is the artifact, entities decoded", () => {
    const next = "Ready for /sdd-explore <topic> or /sdd-new <change-name>.";
    expect(envelopeOf(INIT_WITH_ENGRAM)).toEqual({
      status: "success",
      summary:
        "Project context detected (React 19 + TypeScript + Vitest). Persistence mode: engram. Project context saved to Engram.",
      artifacts: ["#obs_abc123"],
      notes_for_next_agent: next,
      phase: "SDD Initialized",
      change: "",
      result_status: "success",
      warning: false,
      next_recommended: next,
      risks: [],
    });
  });

  it("the seed's own ```markdown fences around the examples", () => {
    const fenced = `Here is my report.\n\n\`\`\`markdown theme={null}\n${VERIFICATION_FAILED}\`\`\`\n`;
    expect(envelopeOf(fenced)).toEqual(envelopeOf(VERIFICATION_FAILED));
  });
});

describe("parseMarkdownResult is lenient on form", () => {
  const same = (text: string) => expect(envelopeOf(text)).toEqual(BASE_ENVELOPE);

  it("the base report", () => same(reportText()));

  it("sections in any order", () =>
    same(
      [
        "## Proposal Created\n**Status**: success\n**Change**: add-dark-mode\n",
        "### Risks\nNone.\n",
        "### Next Recommended\nReady for specs (sdd-spec).\n",
        "### Artifacts\n- openspec/changes/add-dark-mode/proposal.md\n",
        "### Summary\nProposal defines theme switching.\n",
      ].join("\n"),
    ));

  it("Windows line endings", () => same(reportText().replace(/\n/g, "\r\n")));

  it("trailing spaces, tabs and blank lines", () =>
    same(
      reportText()
        .split("\n")
        .map((line) => `${line}  \t`)
        .join("\n\n")
        .replace("Proposal defines theme switching.", "\tProposal   defines\ttheme switching."),
    ));

  it("prose before and after the report", () =>
    same(
      `I wrote the proposal.\n\nSome notes: all went fine.\n\n${reportText()}\nLet me know if you need more.\n`,
    ));

  it("a ```markdown fence around the report, with prose around the fence", () =>
    same(`Done.\n\n\`\`\`markdown\n${reportText()}\`\`\`\n\nThanks!`));

  it("a ~~~ fence without an info string", () => same(`~~~\n${reportText()}~~~\n`));

  it("an unclosed fence around the report", () => same(`\`\`\`md\n${reportText()}`));

  it("lowercase and decorated section headings", () =>
    same(
      reportText({
        summary: "### summary\nProposal defines theme switching.\n",
        artifacts: "### **Artifacts**:\n- openspec/changes/add-dark-mode/proposal.md\n",
        next: "### next recommended steps\nReady for specs (sdd-spec).\n",
        risks: "###   RISKS\nNone.\n",
      }),
    ));

  it.each([
    ["**Status**: SUCCESS", "success"],
    ["Status: success", "success"],
    ["**Status:** success", "success"],
    ["- **Status**: `success`.", "success"],
    ["__Status__: Success!", "success"],
    ["**Status**: ✅ success", "success"],
  ])("status line %s", (line, word) => {
    const envelope = envelopeOf(
      reportText({ head: `## Proposal Created\n**Change**: add-dark-mode\n${line}\n` }),
    );
    expect(envelope.result_status).toBe(word);
  });

  it("the status word on the line after **Status**:", () =>
    same(reportText({ head: "## Proposal Created\n**Change**: `add-dark-mode`\n**Status**:\nsuccess\n" })));

  it("warning maps to status success with warning: true", () => {
    const envelope = envelopeOf(
      reportText({
        head: "## Proposal Created\n**Change**: add-dark-mode\n**Status**: Warning\n",
        risks: "### Risks\n- **WARNING**: coverage dropped\n",
      }),
    );
    expect(envelope).toMatchObject({ status: "success", result_status: "warning", warning: true });
    expect(envelope.risks).toEqual([{ severity: "WARNING", text: "coverage dropped" }]);
  });

  it("bullets -, *, +, 1. and 2) in Artifacts", () => {
    const envelope = envelopeOf(
      reportText({ artifacts: "### Artifacts\n* a.md\n+ b.md\n1. c.md\n2) d.md\n- e.md\n" }),
    );
    expect(envelope.artifacts).toEqual(["a.md", "b.md", "c.md", "d.md", "e.md"]);
  });

  it("artifact items with code spans, links, annotations and bold", () => {
    const envelope = envelopeOf(
      reportText({
        artifacts: [
          "### Artifacts",
          "- `openspec/changes/x/proposal.md` — the proposal",
          "- [design](openspec/changes/x/design.md)",
          "- openspec/changes/x/tasks.md (created)",
          "- openspec/changes/x/spec.md: updated",
          "- **docs/notes.md**",
          "",
        ].join("\n"),
      }),
    );
    expect(envelope.artifacts).toEqual([
      "openspec/changes/x/proposal.md",
      "openspec/changes/x/design.md",
      "openspec/changes/x/tasks.md",
      "openspec/changes/x/spec.md",
      "docs/notes.md",
    ]);
  });

  it("artifacts without bullets: each line of the first paragraph", () => {
    const envelope = envelopeOf(reportText({ artifacts: "### Artifacts\na.md\nb/c.md\n\nLater prose.\n" }));
    expect(envelope.artifacts).toEqual(["a.md", "b/c.md"]);
  });

  it("observation ids, bare or quoted, kept as written", () => {
    const envelope = envelopeOf(
      reportText({
        artifacts:
          "### Artifacts\n- #obs_12345\n- `#obs_a-b_C9`\n- Engram observation: #obs_x1 (topic_key: sdd/x)\n",
      }),
    );
    expect(envelope.artifacts).toEqual(["#obs_12345", "#obs_a-b_C9", "#obs_x1"]);
  });

  it.each(["None", "None.", "None (ephemeral)", "- None.", "_None._", "**None**", "N/A"])(
    "Artifacts %s is an empty list",
    (none) => {
      expect(envelopeOf(reportText({ artifacts: `### Artifacts\n${none}\n` })).artifacts).toEqual([]);
    },
  );

  it.each(["None", "None.", "- None", "*None.*"])("Risks %s is an empty list", (none) => {
    expect(envelopeOf(reportText({ risks: `### Risks\n${none}\n` })).risks).toEqual([]);
  });

  it("risks are optional: a missing or empty Risks section is no risk", () => {
    same(reportText({ risks: "" }));
    same(reportText({ risks: "### Risks\n" }));
  });

  it("risk items in several styles and cases", () => {
    const envelope = envelopeOf(
      reportText({
        risks: [
          "### Risks",
          "- **CRITICAL**: one",
          "- **CRITICAL:** two",
          "- CRITICAL: three",
          "- [WARNING] four",
          "- **Warning** - five",
          "* suggestion: six",
          "1. Critical — seven",
          "- **[SUGGESTION]** eight",
          "- WARNINGS: nine",
          "",
        ].join("\n"),
      }),
    );
    expect(envelope.risks).toEqual([
      { severity: "CRITICAL", text: "one" },
      { severity: "CRITICAL", text: "two" },
      { severity: "CRITICAL", text: "three" },
      { severity: "WARNING", text: "four" },
      { severity: "WARNING", text: "five" },
      { severity: "SUGGESTION", text: "six" },
      { severity: "CRITICAL", text: "seven" },
      { severity: "SUGGESTION", text: "eight" },
      { severity: "WARNING", text: "nine" },
    ]);
  });

  it("a risk item continues on indented lines; prose after the list is not a risk", () => {
    const envelope = envelopeOf(
      reportText({
        risks:
          "### Risks\n- **WARNING**: the cache\n  is never invalidated\n  - seen in `src/cache.ts`\n\nThat is all.\n",
      }),
    );
    expect(envelope.risks).toEqual([
      { severity: "WARNING", text: "the cache is never invalidated seen in `src/cache.ts`" },
    ]);
  });

  it("two reports in one reply that agree: the last one wins", () => {
    const first = reportText({ head: "## Draft\n**Status**: success\n" });
    const envelope = envelopeOf(`Earlier I said:\n\n${first}\nNow it is fixed:\n\n${reportText()}`);
    expect(envelope).toEqual(BASE_ENVELOPE);
  });

  it("two reports whose Status disagree are never resolved, in any order or wrapping: the agent is asked again", () => {
    const failed = reportText({ head: "## Draft\n**Status**: failure\n" });
    const template = reportText({ head: "## Template\n**Status**: success\n" });
    for (const text of [
      `Earlier I said:\n\n${failed}\nNow it is fixed:\n\n${reportText()}`,
      `${failed}\n\nThe template was:\n\n\`\`\`markdown\n${template}\`\`\`\n`,
      `\`\`\`md\n${template}\`\`\`\n\n${failed}`,
      `${reportText({ head: "## Draft\n**Status**: warning\n" })}\n${failed}`,
    ]) {
      const problems = problemsOf(text);
      expect(
        problems.map((p) => p.section),
        text,
      ).toContain("Status");
      expect(problems.find((p) => p.section === "Status")?.message, text).toMatch(
        /^is ambiguous: the reply holds 2 reports/,
      );
    }
  });

  it("Status is read from its plain text: formatting removed, struck-through words left out", () => {
    const statusOf = (value: string) => {
      const parsed = parseMarkdownResult(reportText({ head: `## Build\n**Status**: ${value}\n` }));
      return parsed.ok ? parsed.envelope.result_status : null;
    };
    expect(statusOf("~~success~~ failure")).toBe("failure");
    expect(statusOf("~success~ failure")).toBe("failure");
    expect(statusOf("<del>success</del> failure")).toBe("failure");
    expect(statusOf("<s>success</s> <b>failure</b>")).toBe("failure");
    expect(statusOf("<strike>success</strike>warning")).toBe("warning");
    expect(statusOf("<!-- success --> failure")).toBe("failure");
    expect(statusOf("**_`success`_**")).toBe("success");
    expect(statusOf("[failure](https://ci.example/1)")).toBe("failure");
    // Nothing left, or a strike mark without its partner: not a status, so the agent is asked again.
    expect(statusOf("~~success~~")).toBeNull();
    expect(statusOf("~~success failure")).toBeNull();
  });

  it("a later heading without report fields does not hide the report", () => {
    same(`${reportText()}\n## Notes\n\nNothing else to add.\n`);
  });

  it("a code block inside a section is text, not headings", () => {
    const envelope = envelopeOf(
      reportText({ summary: "### Summary\nRan the script:\n```bash\n## not a heading\necho ok\n```\n" }),
    );
    expect(envelope.summary).toBe("Ran the script:\n```bash\n## not a heading\necho ok\n```");
    expect(envelope.phase).toBe("Proposal Created");
  });

  it("HTML entities are decoded everywhere", () => {
    const envelope = envelopeOf(
      reportText({
        head: "## Proposal &amp; Design\n**Change**: add-dark-mode\n**Status**: success\n",
        next: "### Next Recommended\nRun /sdd-apply &lt;change&gt; &#38; then &#x2F;sdd-verify.\n",
      }),
    );
    expect(envelope.phase).toBe("Proposal & Design");
    expect(envelope.next_recommended).toBe("Run /sdd-apply <change> & then /sdd-verify.");
  });

  it("multi-paragraph text sections keep their paragraphs", () => {
    const envelope = envelopeOf(
      reportText({ summary: "### Summary\nFirst line\ncontinues here.\n\nSecond paragraph.\n- a point\n" }),
    );
    expect(envelope.summary).toBe("First line continues here.\n\nSecond paragraph.\n- a point");
  });
});
