import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replyLines } from "../../src/engine/send/reply-lines.js";

/** Feeds `text` cut at `cuts` (streamed pieces), then ends the send; returns the lines shown. */
function shownOf(text: string, cuts: number[] = []): string[] {
  const shown: string[] = [];
  const lines = replyLines((line) => shown.push(line));
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)) {
    lines.push(text.slice(from, cut));
    from = cut;
  }
  lines.push(text.slice(from));
  lines.end();
  return shown;
}

const envelope = {
  status: "success",
  summary: "Looked around",
  artifacts: ["src/a.ts"],
  notes_for_next_agent: "",
};

/** The shapes a reply's closing envelope takes (docs/envelopes-and-gates.md). */
const ENVELOPES: string[] = [
  JSON.stringify(envelope),
  JSON.stringify(envelope, null, 2),
  `\`\`\`json\n${JSON.stringify(envelope, null, 2)}\n\`\`\``,
  `\`\`\`\n${JSON.stringify(envelope)}\n\`\`\``,
  `Here is my result: ${JSON.stringify(envelope)}`,
  "## Report\n\n### Status\nsuccess\n\n### Summary\nLooked around.\n\n### Artifacts\n- src/a.ts\n\n### Risks\nNone.",
  "**Status**: success\n**Summary**: Looked around.\n**Artifacts**: src/a.ts",
];

/** Prose lines: words, punctuation, no braces, headings, fences or field names. */
const proseLine = fc
  .array(fc.constantFrom("Reading", "the", "code,", "then", "fixing", "it.", "Tests", "pass", "now", "42"), {
    minLength: 1,
    maxLength: 8,
  })
  .map((words) => words.join(" "));

describe("replyLines", () => {
  it("shows each prose line once, whole, and never the closing envelope, however the reply is streamed (fixed seed)", () => {
    fc.assert(
      fc.property(
        fc.array(proseLine, { maxLength: 6 }),
        fc.constantFrom(...ENVELOPES),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.constantFrom("\n", "\r\n", "\n\n"),
        (prose, closing, cuts, newline) => {
          const text = [...prose, closing].join(newline).replaceAll("\n", newline);
          const shown = shownOf(text, cuts);
          const before = closing.startsWith("Here is my result:") ? ["Here is my result:"] : [];
          expect(shown).toEqual([...prose, ...before]);
        },
      ),
      { seed: 0x37_7e2d, numRuns: 1500 },
    );
  });

  it("shows a block that text follows, and a closing block that holds no envelope", () => {
    const example = `\`\`\`json\n${JSON.stringify(envelope, null, 2)}\n\`\`\``;
    expect(shownOf(`The shape:\n${example}\nNow the real work.\n`)).toEqual([
      "The shape:",
      ...example.split("\n").map((l) => l.trim()),
      "Now the real work.",
    ]);
    expect(shownOf("Patch:\n```ts\nconst a = 1;\n```")).toEqual(["Patch:", "```ts", "const a = 1;", "```"]);
    // A heading over prose is prose once the lines under it name no report field.
    expect(shownOf("## Plan\nFirst read.\nThen write.\nThen test.\nThen ship.\n")).toEqual([
      "## Plan",
      "First read.",
      "Then write.",
      "Then test.",
      "Then ship.",
    ]);
  });

  it("shows a line only once it is whole: a piece without newline waits for the rest or the end", () => {
    const shown: string[] = [];
    const lines = replyLines((line) => shown.push(line));
    lines.push("Looking at the ");
    expect(shown).toEqual([]);
    lines.push("repository\nAnd ");
    expect(shown).toEqual(["Looking at the repository"]);
    lines.push("done");
    lines.end();
    expect(shown).toEqual(["Looking at the repository", "And done"]);
  });
});
