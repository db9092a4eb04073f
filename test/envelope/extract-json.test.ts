import { describe, expect, it } from "vitest";
import { envelopeCandidates, extractJsonCandidates } from "../../src/envelope/extract-json.js";

/** Each candidate as `[exact source, problems]` (problems' messages only). */
function described(text: string): [string, string[]][] {
  return envelopeCandidates(text).map((candidate) => [
    text.slice(candidate.start, candidate.end),
    candidate.read().problems.map((problem) => problem.message),
  ]);
}

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

  it("repairs single-quoted values of double-quoted keys, braces inside them included", () => {
    expect(extractJsonCandidates(`{"status": 'success', "summary": 'closed the } brace'}`)).toEqual([
      { status: "success", summary: "closed the } brace" },
    ]);
  });

  it("never repairs a dict whose keys, at any depth, are single-quoted or bare words", () => {
    for (const text of [
      "{'status': 'success', 'summary': 'closed the } brace'}",
      "{'status': 'success', summary: 'done'}",
      `{"status": "success", summary: "done"}`,
      `{"status": "success", "details": {'note': 'x'}}`,
      `{"status": "success", "checks": [{file: "a.ts"}]}`,
      "{status: 'success', 'summary': None, 'ok': True}",
    ]) {
      expect(extractJsonCandidates(text), text).toEqual([]);
      expect(described(text)[0]?.[1]?.[0], text).toMatch(
        /is not JSON: its keys are (in single quotes|bare words)/,
      );
    }
  });

  it("never takes an object that gives a key twice, at any depth and in any escape form", () => {
    for (const text of [
      '{"status": "fail", "status": "success"}',
      '{"status": "fail", "st\\u0061tus": "success"}',
      '{"\\u0073tatus": "fail", "\\u0073\\u0074\\u0061\\u0074\\u0075\\u0073": "success"}',
      '{"status": "success", "details": {"met": false, "met": true}}',
      '{"status": "success", "checks": [{"a": 1, "b": 2, "\\u0061": 3}]}',
    ]) {
      expect(extractJsonCandidates(text), text).toEqual([]);
      expect(described(text)[0]?.[1]?.[0], text).toMatch(/gives the key "(status|met|a)" twice/);
    }
    // The same key in sibling objects is no repeat.
    expect(extractJsonCandidates('{"a": {"k": 1}, "b": {"k": 2}}')).toEqual([{ a: { k: 1 }, b: { k: 2 } }]);
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

  it("keeps a cut-off object whole: an object nested in it never stands on its own", () => {
    const text = 'Report: {"status": "fail", "details": {"status": "success"}, "artifacts": [';
    expect(extractJsonCandidates(text)).toEqual([]);
    const [candidate] = envelopeCandidates(text);
    expect(candidate).toMatchObject({
      start: 8,
      end: text.length,
      cutOff: true,
      keys: ["status", "details", "artifacts"],
    });
    expect(candidate?.read().problems[0]?.message).toMatch(/is cut off: the reply ends before its closing/);
  });

  it("takes a reply ending right after a brace, or inside the first key, as a cut-off object", () => {
    expect(envelopeCandidates('Example {"status": "success"}\nReport: {').map((c) => c.cutOff)).toEqual([
      false,
      true,
    ]);
    expect(envelopeCandidates('Report: {"sta').map((c) => c.cutOff)).toEqual([true]);
  });

  it("never repairs a JS/YAML-style object, nor lets JSON nested in one stand alone", () => {
    expect(extractJsonCandidates("Set {status: success} and {status: 'fail', summary: it works}")).toEqual(
      [],
    );
    expect(extractJsonCandidates('const x = {config: {"status": "success"}};')).toEqual([]);
    expect(described("Set {status: success} here")).toEqual([
      [
        "{status: success}",
        [
          "the object starting `{status: success}` is not JSON: its keys are bare words; write the envelope as JSON, keys in double quotes",
        ],
      ],
    ]);
  });

  it("does not let unmatched braces in prose hide the object between them", () => {
    expect(extractJsonCandidates('Use { to open. {"a": 1} and } to close.')).toEqual([{ a: 1 }]);
    expect(extractJsonCandidates('{ stray {"a": 1} stray }')).toEqual([{ a: 1 }]);
    expect(extractJsonCandidates('The {" sequence, and the {"status" key. Then {"a": 1}')).toEqual([
      { a: 1 },
    ]);
  });

  it("reports a malformed object with where it broke, and covers what lies inside it", () => {
    const text = '{"status": "fail", oops, "details": {"status": "success"}} then {"n": 1}';
    expect(described(text)).toEqual([
      [
        '{"status": "fail", oops, "details": {"status": "success"}}',
        [
          'the JSON object starting `{"status": "fail", oops, "detail…` is not valid JSON: expected ":" after the key at `, "details": {"s`',
        ],
      ],
      ['{"status": "success"}', []],
      ['{"n": 1}', []],
    ]);
    expect(extractJsonCandidates(text)).toEqual([{ n: 1 }]);
  });

  it("repairs a missing comma before a quoted key", () => {
    expect(extractJsonCandidates('{"status": "fail" "summary": "x"}')).toEqual([
      { status: "fail", summary: "x" },
    ]);
  });

  it("names a raw NUL byte and other raw control characters instead of parsing around them", () => {
    expect(extractJsonCandidates('{"summary": "a\u0000b"}')).toEqual([]);
    expect(described('{"summary": "a\u0000b"}')[0]?.[1]).toEqual([
      'the JSON object starting `{"summary": "a\\u0000b"}` holds a raw NUL byte (U+0000) right after `{"summary": "a`; remove it (inside a string, write it as \\u0000)',
    ]);
    expect(described('{"summary": "a\u001b[0m"}')[0]?.[1]?.[0]).toMatch(
      /holds a raw control character \(U\+001B\)/,
    );
    // Raw tabs and newlines inside strings are repaired, as before.
    expect(extractJsonCandidates('{"summary": "a\tb\nc"}')).toEqual([{ summary: "a\tb\nc" }]);
  });

  it("stays linear on 5 MB of nested JS-style braces, deep JSON and malformed objects", () => {
    const size = 5 * 1024 * 1024;
    expect(extractJsonCandidates("{a: ".repeat(size / 4))).toEqual([]);
    expect(extractJsonCandidates('{"a":'.repeat(size / 5))).toEqual([]);
    expect(extractJsonCandidates('{"a": 1 x '.repeat(size / 10))).toEqual([]);
    expect(envelopeCandidates('{"a": 1 x }'.repeat(size / 11)).length).toBeLessThanOrEqual(1064);
    expect(extractJsonCandidates(`{a: ${"word ".repeat(size / 5)}{"ok": true}`)).toEqual([{ ok: true }]);
  });
});
