import { describe, expect, it } from "vitest";
import { markdownCorrectionMessage } from "../../src/envelope/markdown-correction.js";
import { parseMarkdownResult } from "../../src/envelope/markdown-parse.js";
import { MarkdownResult } from "../../src/envelope/markdown-result-type.js";
import { countSentences } from "../../src/envelope/markdown-sentences.js";
import { PROPOSAL_CREATED, reportText, VERIFICATION_FAILED } from "./markdown-seed-examples.js";

describe("countSentences", () => {
  it.each([
    ["Done", 1],
    ["Added the toggle.", 1],
    ["Added the toggle. Tests pass!", 2],
    ["Added the toggle. Tests pass! Ready?", 3],
    ["One. Two. Three. Four.", 4],
    ['He said "done." Then left.', 2],
    ["It works (mostly). Next is verify.", 2],
    ["**Done.** Tests pass.", 2],
    ["Wait... Then it worked.", 2],
  ])("%j has %i", (text, count) => expect(countSentences(text)).toBe(count));

  it.each([
    ["file names and versions", "Wrote proposal.md and bumped v1.2.3 in package.json.", 1],
    ["decimals and percentages", "Coverage is 67.5% of 1.000 lines.", 1],
    ["abbreviations", "Used e.g. React, i.e. the UI layer, etc. and compared it vs. Vue.", 1],
    ["titles and initials", "Dr. Smith and J. Doe approved it.", 1],
    ["a lower-case word after a period", "Ran npm test. then lint.", 1],
    ["inline code", "Ran `node -e 'a. B. C.'` once.", 1],
    ["a URL", "See https://example.com/a.b. Then done.", 2],
    ["fenced code", "Ran the script:\n```bash\necho One. Two. Three. Four.\n```", 1],
  ])("%s do not end sentences", (_name, text, count) => expect(countSentences(text)).toBe(count));

  it("each paragraph and each bullet item is a sentence at least", () => {
    expect(countSentences("First line continues here.\n\nSecond paragraph.\n- a point")).toBe(3);
    expect(countSentences("- a\n- b\n- c\n- d")).toBe(4);
    expect(countSentences("Intro:\n1. One. Two.\n2) c")).toBe(4);
  });

  it("empty text and punctuation alone are no sentence", () => {
    expect(countSentences("")).toBe(0);
    expect(countSentences("...\n\n- \n")).toBe(0);
  });
});

describe("the 1-3 sentence Summary rule", () => {
  const summary = (text: string) => reportText({ summary: `### Summary\n${text}\n` });

  it("the seed's examples hold three sentences and pass", () => {
    expect(parseMarkdownResult(PROPOSAL_CREATED).ok).toBe(true);
    expect(parseMarkdownResult(VERIFICATION_FAILED).ok).toBe(true);
  });

  it.each(["Done.", "Added it. Tested it.", "Added it. Tested it. Ready for verify."])(
    "passes %j",
    (text) => {
      expect(parseMarkdownResult(summary(text)).ok).toBe(true);
    },
  );

  it("four sentences are a problem naming the Summary", () => {
    expect(parseMarkdownResult(summary("Added it. Tested it. Linted it. Ready for verify."))).toEqual({
      ok: false,
      problems: [
        {
          section: "Summary",
          message:
            "has 4 sentences: write 1-3 sentences on what happened (the details belong in the artifacts)",
        },
      ],
    });
  });

  it("a bulleted summary of four items, or one of two long paragraphs, is too long", () => {
    expect(parseMarkdownResult(summary("- intent\n- scope\n- approach\n- risk level")).ok).toBe(false);
    expect(parseMarkdownResult(summary("Added it. Tested it.\n\nLinted it. Documented it.")).ok).toBe(false);
  });

  it("applies to the compact form's **Summary** as well", () => {
    const text = [
      "## Proposal Created",
      "**Status**: success",
      "**Summary**: One. Two. Three. Four. Five.",
      "**Artifacts**: None",
      "**Next**: Run sdd-spec.",
    ].join("\n");
    const parsed = parseMarkdownResult(text);
    expect(parsed.ok ? [] : parsed.problems.map((p) => [p.section, p.message.split(":")[0]])).toEqual([
      ["Summary", "has 5 sentences"],
    ]);
  });

  it("is sent back like the other section problems", () => {
    const parsed = parseMarkdownResult(summary("Added it. Tested it. Linted it. Ready for verify."));
    if (parsed.ok) throw new Error("expected problems");
    expect(markdownCorrectionMessage(MarkdownResult, parsed.problems)).toContain(
      "Problems:\n- `### Summary`: has 4 sentences: write 1-3 sentences on what happened",
    );
  });
});
