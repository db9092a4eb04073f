import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  graphemeCount,
  graphemeCountUpTo,
  graphemes,
  jsonTerminalSafe,
  terminalSafe,
  truncateGraphemes,
} from "../../src/util/terminal-text.js";

// A fixed seed: the same strings on every run, so a failure reproduces.
const settings = { seed: 0x5afe_7e87, numRuns: 1000 };

const BIDI = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** Every code point the function must escape on one line: C0 but tab, DEL, C1, bidi. */
const CONTROLS = [...range(0x00, 0x08), ...range(0x0a, 0x1f), 0x7f, ...range(0x80, 0x9f), ...BIDI];

/** Anything a terminal acts on: C0 (tab and newline allowed when asked), DEL, C1, bidi, lone surrogates. */
const unsafe = (multiline: boolean) =>
  new RegExp(
    `[\\u0000-\\u0008${multiline ? "" : "\\u000a"}\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]`,
    "u",
  );

/** The escape docs/trace.md documents for a control, written independently of the implementation. */
function documented(code: number): string {
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  if (code === 0x7f) return "␡";
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

const control = fc.constantFrom(...CONTROLS).map((code) => ({ text: String.fromCharCode(code), code }));
/** Printable text: graphemes (emoji, accents, other scripts), tabs and awkward multi-unit characters. */
const printable = fc
  .oneof(
    fc.string({ unit: "grapheme", maxLength: 6 }),
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.constantFrom("👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "e\u0301", "𝄞", "中文", "\t", "␛", "<U+202E>", "\u2028", " "),
  )
  .filter((text) => !unsafe(false).test(text))
  .map((text) => ({ text, code: null }));
const pieces = fc.array(fc.oneof(control, printable), { maxLength: 20 });
/** Any UTF-16: lone surrogates, every control, anything. */
const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });
const astral = (text: string) => [...text].filter((c) => (c.codePointAt(0) ?? 0) > 0xffff);

describe("terminalSafe", () => {
  it("shows the sequences that take over a terminal as visible escapes", () => {
    expect(terminalSafe("\x1b[2J\x1b[H")).toBe("␛[2J␛[H");
    expect(terminalSafe("\x1b]8;;https://evil\x07click\x1b]8;;\x07")).toBe("␛]8;;https://evil␇click␛]8;;␇");
    expect(terminalSafe("\x1b]52;c;ZXZpbA==\x07")).toBe("␛]52;c;ZXZpbA==␇");
    expect(terminalSafe("invoice\u202efdp.exe")).toBe("invoice<U+202E>fdp.exe");
    expect(terminalSafe("\u009b2J\u0085")).toBe("<U+009B>2J<U+0085>");
    expect(terminalSafe("ok\b\bno\rYES\0\x7f")).toBe("ok␈␈no␍YES␀␡");
    expect(terminalSafe("\u2066\u2069\u200e\u200f\u061c")).toBe("<U+2066><U+2069><U+200E><U+200F><U+061C>");
  });

  it("keeps tabs, keeps newlines only when the renderer prints several lines, and reads CRLF as a newline", () => {
    expect(terminalSafe("a\tb\nc")).toBe("a\tb␊c");
    expect(terminalSafe("a\tb\nc", { multiline: true })).toBe("a\tb\nc");
    expect(terminalSafe("one\r\ntwo\rthree", { multiline: true })).toBe("one\ntwo␍three");
    expect(terminalSafe("one\r\ntwo")).toBe("one␍␊two");
  });

  it("escapes lone surrogates and keeps surrogate pairs whole", () => {
    expect(terminalSafe("a\ud83dz\ude00")).toBe("a<U+D83D>z<U+DE00>");
    expect(terminalSafe("😀\x1b👨‍👩‍👧")).toBe("😀␛👨‍👩‍👧");
  });

  it("returns printable text itself and turns each control into its documented escape (property)", () => {
    fc.assert(
      fc.property(pieces, (parts) => {
        const input = parts.map((p) => p.text).join("");
        const expected = parts.map((p) => (p.code === null ? p.text : documented(p.code))).join("");
        expect(terminalSafe(input)).toBe(expected);
      }),
      settings,
    );
  });

  it("keeps newlines with multiline, and still escapes every other control (property)", () => {
    const noCr = pieces.map((parts) => parts.filter((p) => p.code !== 0x0d));
    fc.assert(
      fc.property(noCr, (parts) => {
        const input = parts.map((p) => p.text).join("");
        const expected = parts
          .map((p) => (p.code === null || p.code === 0x0a ? p.text : documented(p.code)))
          .join("");
        expect(terminalSafe(input, { multiline: true })).toBe(expected);
      }),
      settings,
    );
  });

  it("never outputs a C0, C1 or bidi control or a lone surrogate, whatever the input (property)", () => {
    fc.assert(
      fc.property(anyUnits, fc.boolean(), (text, multiline) => {
        const safe = terminalSafe(text, { multiline });
        expect(unsafe(multiline).test(safe)).toBe(false);
        if (multiline) expect(safe).not.toContain("\r");
        expect(terminalSafe(safe, { multiline })).toBe(safe);
      }),
      settings,
    );
  });

  it("never cuts a character: every astral character survives whole, in order (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.boolean(), (text, multiline) => {
        const safe = terminalSafe(text, { multiline });
        expect(unsafe(true).test(safe.replaceAll("\n", ""))).toBe(false);
        expect(astral(safe)).toEqual(astral(text));
      }),
      settings,
    );
  });
});

describe("jsonTerminalSafe", () => {
  it("writes DEL, C1 and bidi controls as JSON escapes, which JSON.stringify leaves raw", () => {
    const json = JSON.stringify({ name: "a\u202eb\u009b\x7f\x1b" });
    expect(json).toContain("\u202e");
    expect(jsonTerminalSafe(json)).toBe(String.raw`{"name":"a\u202Eb\u009B\u007F\u001b"}`);
  });

  it("yields the same JSON value with nothing a terminal acts on (property)", () => {
    const value = fc.dictionary(anyUnits, fc.oneof(anyUnits, fc.array(anyUnits, { maxLength: 3 })), {
      maxKeys: 4,
    });
    fc.assert(
      fc.property(value, (object) => {
        const json = jsonTerminalSafe(JSON.stringify(object));
        expect(unsafe(false).test(json)).toBe(false);
        expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(object)));
      }),
      settings,
    );
  });
});

describe("graphemeCount and truncateGraphemes", () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const graphemes = (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);
  const text = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 30 }),
    fc.string({ unit: "binary", maxLength: 30 }),
    fc
      .array(fc.constantFrom("👍🏽", "👨‍👩‍👧‍👦", "🇫🇷", "e\u0301", "𝄞", "a", " ", "\r\n", "中"), {
        maxLength: 20,
      })
      .map((parts) => parts.join("")),
  );

  it("counts an emoji with its modifiers, a flag or a CRLF as one", () => {
    expect(graphemeCount("👍🏽👨‍👩‍👧‍👦🇫🇷e\u0301")).toBe(4);
    expect(graphemeCount("a\r\nb")).toBe(3);
    expect(graphemeCount("plain ascii")).toBe(11);
  });

  it("cuts between emoji, never inside one", () => {
    expect(truncateGraphemes("👍🏽👍🏽👍🏽👍🏽", 3)).toBe("👍🏽👍🏽…");
    expect(truncateGraphemes("ab👨‍👩‍👧‍👦cd", 4)).toBe("ab👨‍👩‍👧‍👦…");
    expect(truncateGraphemes("short", 10)).toBe("short");
    expect(truncateGraphemes("anything", 0)).toBe("");
    expect(truncateGraphemes("abc", 1)).toBe("…");
  });

  it("keeps whole graphemes, at most max of them, the text itself when it fits (property)", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), (input, max) => {
        const cut = truncateGraphemes(input, max);
        const all = graphemes(input);
        expect(graphemeCount(cut)).toBeLessThanOrEqual(max);
        if (all.length <= max) expect(cut).toBe(input);
        else expect(cut).toBe(`${all.slice(0, max - 1).join("")}…`);
        expect(astral(cut).length).toBeLessThanOrEqual(astral(input).length);
        if (!/[\ud800-\udfff]/u.test(input)) expect(/[\ud800-\udfff]/u.test(cut)).toBe(false);
      }),
      settings,
    );
  });
});

describe("graphemes over long texts (segmented in windows)", () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const reference = (text: string) =>
    Array.from(segmenter.segment(text), ({ index, segment }) => ({ index, segment }));
  // Clusters that span window edges: ZWJ families, flag pairs (parity decides the cut), CRLF, combining
  // runs longer than a window, Hangul syllables from jamo, lone surrogates.
  const part = fc.oneof(
    fc.constantFrom(
      "👨‍👩‍👧‍👦",
      "🇫🇷",
      "\u{1f1eb}",
      "👍🏽",
      "e\u0301",
      "\r\n",
      "\r",
      "\n",
      "a",
      " ",
      "中",
      "\u1100\u1161\u11a8",
      "\ud800",
      "\udc00",
    ),
    fc.integer({ min: 200, max: 1200 }).map((n) => `o${"\u0301".repeat(n)}`),
    fc.integer({ min: 1, max: 300 }).map((n) => "x".repeat(n)),
  );
  const long = fc.array(part, { minLength: 1, maxLength: 120 }).map((parts) => parts.join(""));

  it("yields exactly Intl.Segmenter's clusters and indexes (fixed-seed property)", () => {
    fc.assert(
      fc.property(long, (text) => {
        expect(Array.from(graphemes(text))).toEqual(reference(text));
      }),
      { seed: 0x5e9_2026, numRuns: 300 },
    );
  });

  it("counts up to a limit without reading further, and matches the full count below it", () => {
    fc.assert(
      fc.property(long, fc.integer({ min: 0, max: 400 }), (text, limit) => {
        const count = graphemeCount(text);
        expect(count).toBe(reference(text).length);
        expect(graphemeCountUpTo(text, limit)).toBe(Math.min(count, limit + 1));
      }),
      { seed: 0x5e9_2027, numRuns: 300 },
    );
  });

  it("cuts a multi-megabyte tool result to its first graphemes (each step used to cost the whole string)", () => {
    // 8 MiB of text an agent's tool printed: the old per-step cost made this take tens of seconds.
    const huge = `${"é👍🏽".repeat(10)}${"é\u0301 ".repeat(4 * 1024 * 1024)}`;
    const cut = truncateGraphemes(huge, 2000);
    expect(cut.endsWith("…")).toBe(true);
    expect(graphemeCount(cut)).toBe(2000);
    expect(cut.slice(0, -1)).toBe(
      Array.from(segmenter.segment(huge.slice(0, 20_000)), (g) => g.segment)
        .slice(0, 1999)
        .join(""),
    );
    expect(graphemeCountUpTo(huge, 100)).toBe(101);
  });
});
