/**
 * fast-check arbitraries of agent replies for the envelope fuzz test and `bench/envelope-fuzz.mjs`:
 * prose with unicode and control characters, quoted example envelopes, stray braces, JS/YAML-style
 * objects and unrelated JSON around the agent's final report, which is a valid `GenericOutput`, a
 * schema-invalid one, a cut-off one, one holding a raw control character (NUL included), a JS-style
 * one, or missing. Each reply carries the truth the parser is judged against: the final report's exact
 * text and status.
 *
 * The agent's final report is, by construction, the last object in the reply that names an envelope
 * field: after it come only prose, closing braces and objects naming none (`{"port": 8080}`).
 */
import fc from "fast-check";

/**
 * What the agent's final report is. Only `valid` may be accepted, and only when no other report in
 * the reply states another status (`GeneratedReply.otherStatuses`).
 */
export type FinalKind =
  | "valid"
  | "invalid"
  | "cut_off"
  | "control"
  | "js_style"
  | "py_dict"
  | "repeated"
  | "none";

export const FINAL_KINDS: readonly FinalKind[] = [
  "valid",
  "invalid",
  "cut_off",
  "control",
  "js_style",
  "py_dict",
  "repeated",
  "none",
];

/** One generated reply and the truth about it. */
export interface GeneratedReply {
  text: string;
  finalKind: FinalKind;
  /** The final report exactly as written ("" for `none`). */
  finalText: string;
  /** Where `finalText` starts in `text` (-1 for `none`). */
  finalStart: number;
  /** The final report's status when it is `valid`, else null. */
  finalStatus: "success" | "fail" | null;
  /** The status the final report was written with, valid or not (cut off after it, say); null when it has none. */
  writtenStatus: "success" | "fail" | null;
  /** The statuses every other report in the reply states (quoted examples, templates, dicts in prose), in order. */
  otherStatuses: string[];
}

type Status = "success" | "fail";

/** Marks where a raw control character goes; removed from generated strings beforehand. */
const SENTINEL = "\ue000";

const status = fc.constantFrom<Status>("success", "fail");
/** Any code points (quotes, braces, backslashes, control characters, lone surrogates): JSON.stringify escapes them. */
const anyText = fc.string({ unit: "binary", maxLength: 16 }).map((s) => s.replaceAll(SENTINEL, ""));
const word = fc.constantFrom(
  "done",
  "the",
  "build",
  "it's",
  "naïve",
  "日本語",
  "🙂👍🏽",
  "مرحبا",
  "tests",
  "passed",
  '"quoted"',
  "e\u0301",
  "can't",
  "‽",
);
const control = fc.constantFrom("\u0000", "\u0001", "\u001b[31m", "\t", "\r\n", "\u2028", "\ufeff", "\u007f");
/** Printable unicode without JSON punctuation, which only the dedicated arbitraries below add. */
const unicode = fc.string({ unit: "grapheme", maxLength: 8 }).map((s) => s.replace(/[{}[\]"':]/g, ""));
const prose = fc
  .array(fc.oneof({ weight: 4, arbitrary: word }, unicode, control), { minLength: 1, maxLength: 10 })
  .map((parts) => parts.join(" "));

/** The fields of a `GenericOutput`, plus unknown keys that hold objects with a `status` of their own. */
const fields = fc
  .record({
    status,
    summary: fc.option(anyText),
    artifacts: fc.option(fc.array(anyText, { maxLength: 3 })),
    notes_for_next_agent: fc.option(anyText),
    details: fc.option(fc.record({ status, note: anyText })),
    checks: fc.option(fc.array(fc.record({ status, file: anyText }), { maxLength: 2 })),
    order: fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
    indent: fc.constantFrom<string | number>(0, 2, "\t"),
    extra: fc.oneof(
      { weight: 6, arbitrary: fc.constant(0) },
      fc.integer({ min: 1, max: 20 }),
      fc.integer({ min: 250, max: 320 }),
    ),
    escapes: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
  })
  .map(({ order, indent, extra, escapes, ...entries }) => {
    const keys = Object.keys(entries) as (keyof typeof entries)[];
    const sorted = keys
      .map((key, i) => ({ key, rank: order[i] ?? 0 }))
      .sort((a, b) => a.rank - b.rank)
      .map((entry) => entry.key);
    const object: Record<string, unknown> = {};
    // Unknown keys first, so the type's fields may sit past the 256th key.
    for (let i = 0; i < extra; i++) object[`k${i}`] = i;
    for (const key of sorted) if (entries[key] !== null) object[key] = entries[key];
    return { object, status: entries.status, indent, escapes };
  });

/** `\\u0073` or `\\u0053`-style escapes for the characters of a key where `escapes` says so. */
function escapeKey(key: string, escapes: readonly boolean[]): string {
  return [...key]
    .map((char, i) => {
      if (!escapes[i % escapes.length]) return char;
      const hex = char.charCodeAt(0).toString(16).padStart(4, "0");
      return `\\u${i % 2 === 0 ? hex : hex.toUpperCase()}`;
    })
    .join("");
}

/** The object as JSON, its top-level keys written with the escapes `escapes` asks for. */
const render = (
  object: Record<string, unknown>,
  indent: string | number,
  escapes: readonly boolean[] = [],
): string => {
  if (!escapes.some(Boolean)) return JSON.stringify(object, null, indent);
  const members = Object.entries(object).map(
    ([key, value]) => `"${escapeKey(key, escapes)}": ${JSON.stringify(value)}`,
  );
  return indent === 0 ? `{${members.join(",")}}` : `{\n  ${members.join(",\n  ")}\n}`;
};

/** A valid envelope's text and status. */
const validEnvelope = fields.map(({ object, status, indent, escapes }) => ({
  text: render(object, indent, escapes),
  status,
}));

/** Valid JSON that names envelope fields but fails `GenericOutput`. */
const invalidEnvelope = fc
  .tuple(fields, fc.constantFrom("bad-status", "no-status", "artifacts-string", "summary-number"))
  .map(([{ object, status: written, indent }, how]) => {
    const broken: Record<string, unknown> = { ...object };
    if (how === "bad-status") broken.status = "done";
    if (how === "no-status") {
      delete broken.status;
      broken.summary = "forgot the status";
    }
    if (how === "artifacts-string") broken.artifacts = "a.md";
    if (how === "summary-number") broken.summary = 42;
    return {
      text: render(broken, indent),
      written: how === "bad-status" || how === "no-status" ? null : written,
      stated: how === "no-status" ? [] : [String(broken.status)],
    };
  });

/** A final report that gives `status` twice: exactly, escaped or in other case, the two values in either order. */
const repeatedEnvelope = fc
  .tuple(
    fields,
    fc.constantFrom('"status"', '"st\\u0061tus"', '"\\u0073tatus"', '"Status"', '"STATUS"'),
    fc.boolean(),
  )
  .map(([{ object, status: written }, key, first]) => {
    const other = written === "success" ? "fail" : "success";
    const body = JSON.stringify(object).slice(1, -1);
    const again = `${key}: "${other}"`;
    const text = first ? `{${again}, ${body}}` : `{${body}, ${again}}`;
    return { text, written, stated: first ? [other, written] : [written, other] };
  });

const plainWord = fc.constantFrom("done", "build", "tests", "passed");

const jsStyle = fc
  .tuple(status, status, plainWord)
  .chain(([s, t, w]) =>
    fc.constantFrom(
      `{status: ${s}}`,
      `{ status: "${s}", summary: 'the ${w}' }`,
      `{status: ${s}, summary: tests ${w}, artifacts: [a.md]}`,
      `const reply = {status: '${s}', details: {"status": "${t}"}};`,
      `{'status': '${s}', 'summary': '${w}', 'ok': True}`,
    ),
  )
  .map((text) => ({ text, stated: [/status'?: '?"?(success|fail)/.exec(text)?.[1] ?? ""] }));
const stray = fc.constantFrom(
  "{",
  "}",
  "{ ",
  " }",
  "{{",
  "}}",
  "{{name}}",
  "{ stray",
  "{ to open",
  "{}",
  "}{",
);
const strayBefore = fc.oneof(stray, fc.constantFrom('{"word" more', '{"word more', "{\n"));
const quotedExample = fc
  .tuple(
    fc.oneof(
      validEnvelope.map((e) => ({ text: e.text, stated: [e.status as string] })),
      invalidEnvelope.map((e) => ({ text: e.text, stated: e.stated })),
    ),
    fc.constantFrom(0, 1, 2),
  )
  .map(([{ text, stated }, how]) => ({
    text: how === 0 ? `For example:\n\`\`\`json\n${text}\n\`\`\`` : how === 1 ? `e.g. \`${text}\`` : text,
    stated,
  }));
const unrelatedJson = fc.constantFrom(
  '{"port": 8080}',
  '{"config": {"status": "success", "retries": 3}}',
  '{"name": "demo", "tags": ["a", "b"]}',
  "{port: 8080}",
);
const code = fc.constantFrom(
  "```js\nfunction f() { return 1; }\n```",
  '```ts\nif (ok) { send({"status": "success"}); }\n```',
  "```go\nfor { select {} }\n```",
  '[{"status": "success"}]',
);

/** A piece of the reply around the final report, with the statuses the reports in it state. */
type Segment = { text: string; example: boolean; stated: string[] };
const segment = (arbitrary: fc.Arbitrary<string>, example = false): fc.Arbitrary<Segment> =>
  arbitrary.map((text) => ({
    text,
    example,
    stated: /\{"status": "success"\}/.test(text) ? ["success"] : [],
  }));
const reporting = (
  arbitrary: fc.Arbitrary<{ text: string; stated: string[] }>,
  example: boolean,
): fc.Arbitrary<Segment> => arbitrary.map(({ text, stated }) => ({ text, example, stated }));
const before = fc.oneof(
  { weight: 4, arbitrary: segment(prose) },
  { weight: 2, arbitrary: reporting(quotedExample, true) },
  { weight: 2, arbitrary: segment(strayBefore) },
  reporting(jsStyle, false),
  segment(unrelatedJson),
  segment(code, true),
);
const after = fc.oneof(
  { weight: 4, arbitrary: segment(prose) },
  segment(fc.constantFrom("}", "}}", " }", "{ stray", "{{name}}", "{}")),
  segment(fc.constantFrom('{"port": 8080}', "{port: 8080}", '{"config": {"status": "fail"}}')),
);
const separator = fc.constantFrom(" ", "\n", "\n\n", " \t");

type Final = {
  kind: FinalKind;
  text: string;
  status: Status | null;
  written: Status | null;
  stated?: string[];
};
const finalReport: fc.Arbitrary<Final> = fc.oneof(
  {
    weight: 4,
    arbitrary: validEnvelope.map(
      (e): Final => ({ kind: "valid", text: e.text, status: e.status, written: e.status }),
    ),
  },
  invalidEnvelope.map((e): Final => ({ kind: "invalid", text: e.text, status: null, written: e.written })),
  fc
    .tuple(validEnvelope, fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([e, at]): Final => ({ kind: "cut_off", text: cut(e.text, at), status: null, written: e.status })),
  fc
    .tuple(fields, fc.constantFrom("\u0000", "\u0001", "\u001b", "\u001f"))
    .map(([{ object, status: written, indent }, char]): Final => {
      const text = render({ ...object, summary: `${SENTINEL}${object.summary ?? ""}` }, indent);
      return { kind: "control", text: text.replace(SENTINEL, char), status: null, written };
    }),
  fc.tuple(status, word).map(
    ([s, w]): Final => ({
      kind: "js_style",
      text: `{status: ${s}, summary: ${w}}`,
      status: null,
      written: s,
    }),
  ),
  fc.tuple(status, plainWord).map(
    ([s, w]): Final => ({
      kind: "py_dict",
      text: `{'status': '${s}', 'summary': '${w}', 'artifacts': [], 'ok': True, 'next': None}`,
      status: null,
      written: s,
    }),
  ),
  repeatedEnvelope.map(
    (e): Final => ({ kind: "repeated", text: e.text, status: null, written: e.written, stated: e.stated }),
  ),
  fc.constant<Final>({ kind: "none", text: "", status: null, written: null }),
);

/** A proper prefix of `text` (at least its `{`), cut at the fraction `at`. */
function cut(text: string, at: number): string {
  return text.slice(0, 1 + Math.floor(at * (text.length - 2)));
}

/** Replies of every class, each with the truth about its final report. */
export const replyArbitrary: fc.Arbitrary<GeneratedReply> = fc
  .record({
    before: fc.array(fc.tuple(before, separator), { maxLength: 6 }),
    final: finalReport,
    wrap: fc.constantFrom(0, 1, 2),
    after: fc.array(fc.tuple(separator, after), { maxLength: 3 }),
  })
  .map(({ before: head, final, wrap, after: tail }) => {
    const kept = final.kind === "none" ? head.filter(([s]) => !s.example) : head;
    const prefix = kept.map(([s, sep]) => s.text + sep).join("");
    const others = kept.flatMap(([s]) => s.stated);
    if (final.kind === "cut_off") {
      const fence = wrap === 1 ? "```json\n" : "";
      return reply(prefix + fence + final.text, prefix.length + fence.length, final, others);
    }
    const suffix = tail.map(([sep, s]) => sep + s.text).join("");
    const [open, close] = wrap === 1 ? ["```json\n", "\n```"] : wrap === 2 ? ["Report: ", " ok"] : ["", ""];
    return reply(prefix + open + final.text + close + suffix, prefix.length + open.length, final, others);
  });

function reply(text: string, start: number, final: Final, otherStatuses: string[]): GeneratedReply {
  return {
    text,
    finalKind: final.kind,
    finalText: final.text,
    finalStart: final.kind === "none" ? -1 : start,
    finalStatus: final.status,
    writtenStatus: final.written,
    otherStatuses,
  };
}

/** Whether the reply's reports all state the final report's status: only then may a valid one be accepted. */
export function reportsAgree(reply: GeneratedReply): boolean {
  return reply.otherStatuses.every((stated) => stated === reply.finalStatus);
}
