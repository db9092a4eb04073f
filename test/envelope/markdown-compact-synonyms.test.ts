import { describe, expect, it } from "vitest";
import { ATL_INIT, ATL_PROPOSE } from "./markdown-atl-examples.js";
import { COMPACT_FIELDS, compact, envelopeOf, problemsOf, sections } from "./markdown-expect.js";
import { BASE_ENVELOPE, reportText } from "./markdown-seed-examples.js";

describe("synonyms as ### headings", () => {
  it.each(["Next", "Next Step", "Next Steps", "next steps", "Recommended Next Step"])("### %s", (title) => {
    expect(envelopeOf(reportText({ next: `### ${title}\nReady for specs (sdd-spec).\n` }))).toEqual(
      BASE_ENVELOPE,
    );
  });

  it("### Executive Summary", () => {
    expect(
      envelopeOf(reportText({ summary: "### Executive Summary\nProposal defines theme switching.\n" })),
    ).toEqual(BASE_ENVELOPE);
  });

  it("a section and a synonym of it are a duplicate", () => {
    const text = `${reportText()}\n### Next Step\nReady for design (sdd-design).\n`;
    expect(problemsOf(text)).toEqual([
      { section: "Next Recommended", message: "appears 2 times: keep one `### Next Recommended` section" },
    ]);
  });
});

describe("the status synonyms", () => {
  it.each([
    ["partial", "warning"],
    ["Partial", "warning"],
    ["blocked", "failure"],
    ["BLOCKED: waiting on design", "failure"],
  ])("%s is %s", (word, status) => {
    const risks = "### Risks\n- **CRITICAL**: design is open\n";
    expect(envelopeOf(reportText({ head: `## X\n**Status**: ${word}\n`, risks })).result_status).toBe(status);
  });

  it("synonyms that agree are one status; words that disagree are not", () => {
    const twice = reportText({
      head: "## X\n**Status**: warning\n",
      risks: "### Risks\n- **WARNING**: slow\n",
    });
    expect(
      envelopeOf(twice.replace("**Status**: warning", "**Status**: warning\nStatus: partial")).result_status,
    ).toBe("warning");
    const problems = problemsOf(reportText({ head: "## X\n**Status**: partial\nStatus: blocked\n" }));
    expect(problems).toEqual([
      {
        section: "Status",
        message: "is given 2 times with different values (partial, blocked): give it once",
      },
    ]);
  });

  it("a ### Status section that is no status word still counts when no field gives the status", () => {
    const text = reportText({
      head: "## Implementation Progress\n\n### Status\n3/3 tasks complete. Ready for verify\n",
    });
    expect(problemsOf(text)).toEqual([
      {
        section: "Status",
        message:
          '"3/3 tasks complete. ready for verify" is not a status: write exactly one of success, warning, failure',
      },
    ]);
  });
});

describe("a compact report that truly lacks a datum still gets a correction naming it", () => {
  const without = (name: string) =>
    compact(COMPACT_FIELDS.filter((field) => !field.startsWith(`**${name}**`)));

  it.each([
    ["Status", "Status"],
    ["Summary", "Summary"],
    ["Artifacts", "Artifacts"],
    ["Next", "Next Recommended"],
  ])("no **%s**", (name, section) => {
    expect(sections(problemsOf(without(name)))).toEqual([section]);
  });

  it("no Risks is no risk", () => {
    expect(envelopeOf(without("Risks"))).toEqual(BASE_ENVELOPE);
  });

  it("empty values", () => {
    const text = compact([
      "**Status**: success",
      "**Summary**:",
      "**Artifacts**:",
      "**Next**:",
      "**Risks**: None",
    ]);
    expect(problemsOf(text)).toEqual([
      { section: "Summary", message: expect.stringMatching(/^is empty/) },
      { section: "Artifacts", message: expect.stringMatching(/^is empty/) },
      { section: "Next Recommended", message: expect.stringMatching(/^is empty/) },
    ]);
  });

  it("a field given twice", () => {
    expect(problemsOf(compact([...COMPACT_FIELDS, "**Summary**: Again."]))).toEqual([
      { section: "Summary", message: "is given 2 times: keep one `**Summary**:` line" },
    ]);
  });

  it("a risk without a severity", () => {
    const text = compact([...COMPACT_FIELDS.slice(0, 5), "**Risks**: localStorage may be unavailable"]);
    expect(problemsOf(text)).toEqual([
      {
        section: "Risks",
        message:
          'item 1 ("localStorage may be unavailable") has no severity: start it with **CRITICAL**:, **WARNING**: or **SUGGESTION**:',
      },
    ]);
  });

  it("a phase's own report without the envelope: its missing data are named", () => {
    const propose = ATL_PROPOSE.slice(0, ATL_PROPOSE.indexOf("**Status**"));
    expect(sections(problemsOf(propose))).toEqual(["Status", "Summary", "Artifacts"]);
    const init = ATL_INIT.slice(0, ATL_INIT.indexOf("**Status**"));
    expect(sections(problemsOf(init))).toEqual(["Status", "Summary", "Artifacts"]);
  });

  it("a heading is still required once the report has ### sections", () => {
    const text = `**Status**: success\n\n### Summary\nDone.\n\n### Artifacts\nNone.\n\n### Next\nRun sdd-verify.\n`;
    expect(sections(problemsOf(text))).toEqual(["heading"]);
  });

  it("a # heading is still named", () => {
    expect(sections(problemsOf(`# Proposal Created\n${COMPACT_FIELDS.join("\n")}\n`))).toEqual(["heading"]);
  });
});
