import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  markdownCorrectionMessage,
  markdownGateCorrectionMessage,
} from "../../src/envelope/markdown-correction.js";
import { markdownTypeProblem, parseMarkdownEnvelope } from "../../src/envelope/markdown-envelope.js";
import { type MarkdownResultEnvelope, parseMarkdownResult } from "../../src/envelope/markdown-parse.js";
import { renderMarkdownResult } from "../../src/envelope/markdown-render.js";
import { markdownReportSection } from "../../src/envelope/markdown-report-section.js";
import { MarkdownResult } from "../../src/envelope/markdown-result-type.js";
import { defineOutputType } from "../../src/envelope/output-type.js";
import { reportSection } from "../../src/envelope/report-section.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import { GateReport } from "../../src/gates/gate.js";
import {
  INIT_WITH_ENGRAM,
  PROPOSAL_CREATED,
  reportText,
  VERIFICATION_FAILED,
} from "./markdown-seed-examples.js";

function parsed(text: string): MarkdownResultEnvelope {
  const result = parseMarkdownResult(text);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.envelope;
}

const fencedReport = (text: string) => /```markdown\n([\s\S]*?)```/.exec(text)?.[1] ?? "";

describe("renderMarkdownResult", () => {
  it("renders the seed's verification example in the contract's shape", () => {
    expect(renderMarkdownResult(parsed(VERIFICATION_FAILED))).toBe(VERIFICATION_FAILED);
    expect(renderMarkdownResult(parsed(PROPOSAL_CREATED))).toBe(PROPOSAL_CREATED);
  });

  it.each([
    ["proposal", PROPOSAL_CREATED],
    ["verification", VERIFICATION_FAILED],
    ["init", INIT_WITH_ENGRAM],
    ["variant", reportText({ risks: "### Risks\n- [warning] slow\n- suggestion: rename" })],
  ])("round-trips the %s report through the parser", (_name, text) => {
    const envelope = parsed(text);
    expect(parsed(renderMarkdownResult(envelope))).toEqual(envelope);
  });

  it("round-trips odd values: spaces in artifacts, paragraphs, a warning", () => {
    const envelope = MarkdownResult.schema.parse({
      status: "success",
      summary: "First paragraph.\n\nSecond one.\n- a point",
      artifacts: ["docs/my notes.md", "#obs_1", "src/a.ts"],
      notes_for_next_agent: "Run `npm test` in packages/core.",
      phase: "Tasks Broken Down",
      change: "",
      result_status: "warning",
      warning: true,
      next_recommended: "Run `npm test` in packages/core.",
      risks: [{ severity: "SUGGESTION", text: "split `tasks.md` in two" }],
    });
    const text = renderMarkdownResult(envelope);
    expect(text).toContain("- `docs/my notes.md`\n- #obs_1\n- src/a.ts\n");
    expect(text).not.toContain("**Change**");
    expect(parsed(text)).toEqual(envelope);
  });

  it("the type's example round-trips", () => {
    const example = MarkdownResult.schema.parse(MarkdownResult.example);
    expect(parsed(renderMarkdownResult(example))).toEqual(example);
  });
});

describe("the Markdown ## Report section", () => {
  const section = markdownReportSection(MarkdownResult);

  it("shows the type's example, rendered so that the parser reads it back", () => {
    expect(section.startsWith("## Report\n\nEnd your reply with this Markdown report")).toBe(true);
    expect(parsed(fencedReport(section))).toEqual(MarkdownResult.schema.parse(MarkdownResult.example));
    expect(parsed(section)).toEqual(MarkdownResult.schema.parse(MarkdownResult.example));
  });

  it("states the statuses, the severities and the None. rules", () => {
    for (const word of [
      "`success`",
      "`warning`",
      "`failure`",
      "**CRITICAL**",
      "**WARNING**",
      "**SUGGESTION**",
    ]) {
      expect(section).toContain(word);
    }
    expect(section.match(/`None\.` when there are none/g)).toHaveLength(2);
    expect(section).toContain('never just "continue"');
  });

  it("is what reportSection gives for the markdown format", () => {
    expect(reportSection(MarkdownResult, "markdown")).toBe(section);
    expect(reportSection(MarkdownResult)).toContain("Respond with ONLY valid JSON");
  });
});

describe("markdownCorrectionMessage", () => {
  it("names every problem's section and repeats the shape", () => {
    const problems = [
      { section: "heading", message: "missing: x" },
      { section: "Status", message: '"done" is not a status' },
      { section: "Next Recommended", message: "missing: y" },
      { section: "Risks", message: "item 1 has no severity" },
    ];
    const message = markdownCorrectionMessage(MarkdownResult, problems);
    expect(message).toContain(
      [
        "Problems:",
        "- `## <Phase Name>` heading: missing: x",
        '- `**Status**`: "done" is not a status',
        "- `### Next Recommended`: missing: y",
        "- `### Risks`: item 1 has no severity",
      ].join("\n"),
    );
    expect(parsed(fencedReport(message))).toEqual(MarkdownResult.schema.parse(MarkdownResult.example));
    expect(message).toContain("\nRules:\n- Heading: `## <Phase Name>`");
    expect(markdownCorrectionMessage(MarkdownResult, problems)).toBe(message);
  });

  it("gate corrections list each failed gate's violations and ask for the whole report", () => {
    const failed = new GateReport("statusConsistent").check("risks", false, "warning lists no risk");
    const passed = new GateReport("artifactsExist").check("a.md", true, "exists");
    const message = markdownGateCorrectionMessage([failed, passed]);
    expect(message).toContain("Gate `statusConsistent` failed:\n- risks: warning lists no risk");
    expect(message).not.toContain("artifactsExist");
    expect(message).toContain("complete Markdown report");
  });
});

describe("types extending MarkdownResult", () => {
  const Extended = defineOutputType(
    "SpecResult",
    MarkdownResult.schema.extend({ change: z.string().min(1), spec_count: z.number().default(0) }),
    { ...MarkdownResult.example, change: "add-dark-mode", spec_count: 2 },
  );

  it("markdownTypeProblem accepts MarkdownResult and extensions whose extra fields have defaults", () => {
    expect(markdownTypeProblem(MarkdownResult)).toBeNull();
    expect(markdownTypeProblem(Extended)).toBeNull();
    expect(markdownTypeProblem(GenericOutput)).toMatch(
      /^GenericOutput is not MarkdownResult and does not extend it \(no phase, change, result_status/,
    );
    const Required = defineOutputType("NeedsTicket", MarkdownResult.schema.extend({ ticket: z.string() }), {
      ...MarkdownResult.example,
      ticket: "ABC-1",
    });
    expect(markdownTypeProblem(Required)).toBe(
      "NeedsTicket has fields a Markdown report cannot carry and that have no default (ticket)",
    );
  });

  it("parseMarkdownEnvelope applies the type's defaults and names its problems by section", () => {
    expect(parseMarkdownEnvelope(PROPOSAL_CREATED, Extended)).toEqual({
      ok: true,
      envelope: { ...parsed(PROPOSAL_CREATED), spec_count: 0 },
    });
    expect(parseMarkdownEnvelope(INIT_WITH_ENGRAM, Extended)).toEqual({
      ok: false,
      problems: [{ section: "Change", message: "must be at least 1 character long, got 0 characters" }],
    });
  });
});
