import { describe, expect, it } from "vitest";
import { extractJsonCandidates } from "../../src/envelope/extract-json.js";

describe("extractJsonCandidates", () => {
  it("returns a bare object", () => {
    expect(extractJsonCandidates('{"status": "success", "summary": "done"}')).toEqual([
      { status: "success", summary: "done" },
    ]);
  });

  it("finds an object in a ```json fence inside prose", () => {
    const text = [
      "I finished the work.",
      "",
      "```json",
      "{",
      '  "status": "success",',
      '  "artifacts": ["a.md"]',
      "}",
      "```",
      "",
      "Let me know if anything else is needed.",
    ].join("\n");
    expect(extractJsonCandidates(text)).toEqual([{ status: "success", artifacts: ["a.md"] }]);
  });

  it("finds an object in a bare ``` fence", () => {
    expect(extractJsonCandidates('Report:\n```\n{"status": "fail"}\n```')).toEqual([{ status: "fail" }]);
  });

  it("finds an object wrapped in prose on the same line", () => {
    expect(extractJsonCandidates('Here is my report: {"status": "success"} Thanks')).toEqual([
      { status: "success" },
    ]);
  });

  it("returns several objects in document order, nested ones only inside their parent", () => {
    const text = 'first {"n": 1, "inner": {"deep": true}} then {"n": 2} and finally {"n": 3}';
    expect(extractJsonCandidates(text)).toEqual([{ n: 1, inner: { deep: true } }, { n: 2 }, { n: 3 }]);
  });

  it("ignores braces and escaped quotes inside strings", () => {
    const text = 'Result: {"summary": "use {x} and \\"}\\" carefully {", "path": "a\\\\"} end }';
    expect(extractJsonCandidates(text)).toEqual([{ summary: 'use {x} and "}" carefully {', path: "a\\" }]);
  });

  it("does not let apostrophes or stray quotes in prose hide the JSON that follows", () => {
    const text = 'It\'s done; the {draft said "maybe\nso here it is:\n{"status": "success"}';
    expect(extractJsonCandidates(text)).toEqual([{ status: "success" }]);
  });

  it("repairs a trailing comma", () => {
    expect(extractJsonCandidates('Done. {"status": "success", "artifacts": ["a", "b",],}')).toEqual([
      { status: "success", artifacts: ["a", "b"] },
    ]);
  });

  it("repairs single quotes and unquoted keys, braces inside single-quoted strings included", () => {
    expect(extractJsonCandidates("{'status': 'success', summary: 'closed the } brace'}")).toEqual([
      { status: "success", summary: "closed the } brace" },
    ]);
  });

  it("skips brace groups that are not JSON even after repair", () => {
    expect(extractJsonCandidates('function f() { return 1; } and {"ok": true}')).toEqual([{ ok: true }]);
  });

  it("returns nothing for text without JSON", () => {
    expect(extractJsonCandidates("All done, no report today.")).toEqual([]);
    expect(extractJsonCandidates("")).toEqual([]);
    expect(extractJsonCandidates("unbalanced { here and } there }}}")).toEqual([]);
  });

  it("ignores JSON arrays and scalars: only objects are candidates", () => {
    expect(extractJsonCandidates('[1, 2] "text" 42 {"a": [{"b": 1}]}')).toEqual([{ a: [{ b: 1 }] }]);
  });

  it("handles a 5 MB message with the envelope at the end", () => {
    const line = 'log line with {braces} and "quotes" it\'s {"level": "info"} more words\n';
    const filler = line.repeat(Math.ceil((5 * 1024 * 1024) / line.length));
    const candidates = extractJsonCandidates(`${filler}\n\`\`\`json\n{"status": "success"}\n\`\`\`\n`);
    expect(candidates.at(-1)).toEqual({ status: "success" });
  });

  it("handles 5 MB of opening braces", () => {
    expect(extractJsonCandidates("{".repeat(5 * 1024 * 1024))).toEqual([]);
  });

  it("still finds an object after 5 MB of opening braces", () => {
    expect(extractJsonCandidates(`${"{".repeat(5 * 1024 * 1024)}\n{"status": "success"}`)).toEqual([
      { status: "success" },
    ]);
  });

  it("handles 5 MB of deeply nested braces and of broken objects", () => {
    const half = 2.5 * 1024 * 1024;
    expect(extractJsonCandidates("{".repeat(half) + "}".repeat(half))).toEqual([]);
    const broken = extractJsonCandidates('{"a"}'.repeat(1024 * 1024));
    expect(broken).toEqual([]);
  });
});
