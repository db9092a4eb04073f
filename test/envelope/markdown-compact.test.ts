import { describe, expect, it } from "vitest";
import { parseMarkdownResult } from "../../src/envelope/markdown-parse.js";
import { renderMarkdownResult } from "../../src/envelope/markdown-render.js";
import {
  ATL_APPLY,
  ATL_ARCHIVE,
  ATL_BLOCKED,
  ATL_DESIGN,
  ATL_ENVELOPE,
  ATL_EXPLORE,
  ATL_INIT,
  ATL_PROPOSE,
  ATL_SPEC,
  ATL_TASKS,
  ATL_VERIFY,
} from "./markdown-atl-examples.js";
import { COMPACT_FIELDS, compact, envelopeOf } from "./markdown-expect.js";
import { BASE_ENVELOPE } from "./markdown-seed-examples.js";

const ATL_REPORTS = {
  envelope: ATL_ENVELOPE,
  propose: ATL_PROPOSE,
  spec: ATL_SPEC,
  design: ATL_DESIGN,
  tasks: ATL_TASKS,
  apply: ATL_APPLY,
  verify: ATL_VERIFY,
  archive: ATL_ARCHIVE,
  init: ATL_INIT,
  explore: ATL_EXPLORE,
  blocked: ATL_BLOCKED,
};

describe("Agent Teams Lite's reports, exactly as its skills return them", () => {
  it.each(Object.entries(ATL_REPORTS))("%s is accepted without a correction", (_name, text) => {
    expect(parseMarkdownResult(text).ok).toBe(true);
  });

  it.each(Object.entries(ATL_REPORTS))("%s round-trips through the canonical rendering", (_name, text) => {
    const envelope = envelopeOf(text);
    const canonical = renderMarkdownResult(envelope);
    expect(canonical).toMatch(/^## .+\n\n(\*\*Change\*\*: .+\n)?\*\*Status\*\*: (success|warning|failure)\n/);
    expect(canonical).toContain("\n### Summary\n");
    expect(canonical).toContain("\n### Next Recommended\n");
    expect(envelopeOf(canonical)).toEqual(envelope);
  });

  it("the shared envelope alone: no heading needed, phase Report, Engram key and file both kept", () => {
    expect(envelopeOf(ATL_ENVELOPE)).toEqual({
      status: "success",
      summary: "Proposal created for `add-dark-mode`. Defined scope, approach, and rollback plan.",
      artifacts: ["sdd/add-dark-mode/proposal", "openspec/changes/add-dark-mode/proposal.md"],
      notes_for_next_agent: "sdd-spec or sdd-design",
      phase: "Report",
      change: "",
      result_status: "success",
      warning: false,
      next_recommended: "sdd-spec or sdd-design",
      risks: [],
    });
  });

  it("propose: the envelope's fields win over the phase's own Summary bullets and Next Step", () => {
    expect(envelopeOf(ATL_PROPOSE)).toEqual({
      status: "success",
      summary: "Proposal created for `add-dark-mode`. Defined scope, approach, and rollback plan.",
      artifacts: ["openspec/changes/add-dark-mode/proposal.md"],
      notes_for_next_agent: "sdd-spec or sdd-design",
      phase: "Proposal Created",
      change: "add-dark-mode",
      result_status: "success",
      warning: false,
      next_recommended: "sdd-spec or sdd-design",
      risks: [],
    });
  });

  it("spec: partial is warning", () => {
    expect(envelopeOf(ATL_SPEC)).toMatchObject({
      phase: "Specs Created",
      status: "success",
      result_status: "warning",
      warning: true,
      risks: [{ severity: "WARNING", text: "no scenario covers localStorage being unavailable" }],
    });
  });

  it("apply: its `### Status` progress line is not a status; the inline artifacts are split", () => {
    expect(envelopeOf(ATL_APPLY)).toMatchObject({
      phase: "Implementation Progress",
      result_status: "warning",
      artifacts: [
        "src/styles/theme.css",
        "src/components/ThemeToggle.tsx",
        "src/main.tsx",
        "openspec/changes/add-dark-mode/tasks.md",
      ],
      next_recommended: "sdd-apply (batch 2: task 3.1), then sdd-verify",
    });
  });

  it("verify: tables, code blocks and bold result lines are the detailed report", () => {
    expect(envelopeOf(ATL_VERIFY)).toMatchObject({
      phase: "Verification Report",
      change: "add-dark-mode",
      result_status: "success",
      summary:
        "Verification passed for `add-dark-mode`: 7/7 scenarios compliant, 12 tests pass, coverage 84%.",
      artifacts: ["openspec/changes/add-dark-mode/verify-report.md"],
      next_recommended: "sdd-archive",
      risks: [{ severity: "SUGGESTION", text: "extract the theme names into a shared constant" }],
    });
  });

  it("archive and init: pipe- and comma-separated artifacts, Next none, Project is not a change", () => {
    expect(envelopeOf(ATL_ARCHIVE)).toMatchObject({
      artifacts: ["openspec/specs/ui-theme/spec.md", "openspec/changes/archive/2025-06-01-add-dark-mode/"],
      next_recommended: "none",
    });
    expect(envelopeOf(ATL_INIT)).toMatchObject({
      phase: "SDD Initialized",
      change: "",
      artifacts: ["openspec/config.yaml", "openspec/specs/", "openspec/changes/"],
      next_recommended: "/sdd-explore <topic> or /sdd-new <change-name>",
    });
  });

  it("explore: the envelope's risks, split at each severity, replace the severity-less list", () => {
    expect(envelopeOf(ATL_EXPLORE)).toMatchObject({
      phase: "Exploration: dark mode",
      risks: [
        { severity: "WARNING", text: "third-party widgets keep their light styles" },
        { severity: "WARNING", text: "the light theme may flash on first paint" },
      ],
    });
  });

  it("blocked is failure", () => {
    expect(envelopeOf(ATL_BLOCKED)).toMatchObject({
      status: "fail",
      result_status: "failure",
      artifacts: [],
      risks: [{ severity: "CRITICAL", text: "no storage backend chosen" }],
    });
  });
});

describe("the compact form's generated variants are the same report", () => {
  const same = (text: string) => expect(envelopeOf(text)).toEqual(BASE_ENVELOPE);

  it("the base compact report", () => same(compact(COMPACT_FIELDS)));

  it.each([
    [0, 1, 2, 3, 4, 5],
    [5, 4, 3, 2, 1, 0],
    [1, 4, 0, 3, 5, 2],
    [3, 2, 5, 1, 0, 4],
    [4, 0, 5, 2, 1, 3],
  ])("field order %j", (...order) => same(compact(order.map((i) => COMPACT_FIELDS[i] ?? ""))));

  it.each([
    [
      "upper case names",
      (f: string) => f.replace(/\*\*(\w+)\*\*/, (_m, n: string) => `**${n.toUpperCase()}**`),
    ],
    [
      "lower case names",
      (f: string) => f.replace(/\*\*(\w+)\*\*/, (_m, n: string) => `**${n.toLowerCase()}**`),
    ],
    ["the colon inside the bold", (f: string) => f.replace(/\*\*(\w+)\*\*:/, "**$1:**")],
    ["underscores for bold", (f: string) => f.replace(/\*\*(\w+)\*\*/, "__$1__")],
    ["- bullets", (f: string) => `- ${f}`],
    ["* bullets", (f: string) => `* ${f}`],
    ["+ bullets", (f: string) => `+ ${f}`],
    ["numbered", (f: string, i: number) => `${i + 1}. ${f}`],
    ["a space before the colon", (f: string) => f.replace("**:", "** :")],
    ["trailing spaces and tabs", (f: string) => `${f}  \t`],
  ])("%s", (_name, change) => same(compact(COMPACT_FIELDS.map(change))));

  it("CRLF and CR line endings", () => {
    same(compact(COMPACT_FIELDS, "\r\n"));
    same(compact(COMPACT_FIELDS, "\r"));
  });

  it.each(["Next Step", "Next Steps", "Next Recommended", "next_recommended", "Recommended Next Steps"])(
    "**%s**: is Next Recommended",
    (name) => same(compact(COMPACT_FIELDS.map((f) => f.replace("**Next**", `**${name}**`)))),
  );

  it("**Executive Summary**: is the Summary", () =>
    same(compact(COMPACT_FIELDS.map((f) => f.replace("**Summary**", "**Executive Summary**")))));

  it("values on the lines below their field, lists in any bullet style", () =>
    same(
      compact([
        "**Change**: add-dark-mode",
        "**Status**:",
        "success",
        "**Summary**:",
        "Proposal defines",
        "theme switching.",
        "",
        "**Artifacts**:",
        "",
        "* openspec/changes/add-dark-mode/proposal.md",
        "**Next**:",
        "Ready for specs (sdd-spec).",
        "**Risks**:",
        "1. None.",
      ]),
    ));

  it("a bulleted envelope with nested items", () =>
    same(
      compact([
        "- **Change**: add-dark-mode",
        "- **Status**: success",
        "- **Summary**: Proposal defines theme switching.",
        "- **Artifacts**:",
        "  - `openspec/changes/add-dark-mode/proposal.md` (created)",
        "- **Next**: Ready for specs (sdd-spec).",
        "- **Risks**: None.",
        "- **Skill Resolution**: none",
      ]),
    ));

  it("prose around it, a ```markdown fence, fields the contract does not know", () => {
    const body = COMPACT_FIELDS.join("\n");
    same(
      `I wrote the proposal.\n\n## Proposal Created\n\n**Mode**: openspec\n${body}\n**Skill Resolution**: injected\n\nThanks!\n`,
    );
    same(`Done.\n\n\`\`\`markdown\n## Proposal Created\n${body}\n\`\`\`\n`);
  });

  it("code right under a field belongs to it; code after a blank line ends it", () => {
    const envelope = envelopeOf(
      compact([
        "**Status**: success",
        "**Summary**: Ran it:",
        "```",
        "ok 1",
        "```",
        "**Artifacts**: None",
        "**Next**: Run sdd-verify.",
        "**Risks**: None",
        "",
        "```",
        "a log line",
        "```",
      ]),
    );
    expect(envelope).toMatchObject({ summary: "Ran it:\n```\nok 1\n```", artifacts: [], risks: [] });
  });

  it("a fenced compact envelope without a heading", () => {
    const envelope = envelopeOf(`Here it is:\n\n\`\`\`markdown\n${COMPACT_FIELDS.join("\n")}\n\`\`\`\n`);
    expect(envelope).toEqual({ ...BASE_ENVELOPE, phase: "Report" });
  });

  it("a list field's inline value and the lines after it", () => {
    const envelope = envelopeOf(
      compact([
        ...COMPACT_FIELDS.slice(0, 3),
        "**Artifacts**: `a.md` (new), b/c.md; d.md | [e](docs/e.md)",
        "**Next**: Ready for specs (sdd-spec).",
        "**Risks**: **WARNING**: slow, flaky; **SUGGESTION**: rename it",
      ]),
    );
    expect(envelope.artifacts).toEqual(["a.md", "b/c.md", "d.md", "docs/e.md"]);
    expect(envelope.risks).toEqual([
      { severity: "WARNING", text: "slow, flaky" },
      { severity: "SUGGESTION", text: "rename it" },
    ]);
  });

  it("an annotation with a comma stays one artifact", () => {
    const envelope = envelopeOf(
      compact([
        ...COMPACT_FIELDS.slice(0, 3),
        "**Artifacts**: src/a.ts — the toggle, with tests",
        ...COMPACT_FIELDS.slice(4),
      ]),
    );
    expect(envelope.artifacts).toEqual(["src/a.ts"]);
  });
});
