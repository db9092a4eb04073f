import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { envelopeCandidates, extractJsonCandidates } from "../../src/envelope/extract-json.js";
import { locateEnvelope, parseEnvelope } from "../../src/envelope/parse-envelope.js";
import { GenericOutput } from "../../src/envelope/schemas.js";
import {
  FINAL_KINDS,
  type FinalKind,
  type GeneratedReply,
  replyArbitrary,
  reportsAgree,
} from "./envelope-replies.js";

// A fixed seed: the same replies on every run, so a failure reproduces; bench/envelope-fuzz.mjs runs
// many more. Shrunk counterexamples are printed by fast-check.
const SEED = 20_261_201;
const RUNS = 5000;
const settings = { seed: SEED, numRuns: 2000 };

/** The problems of the object that decided, when that is the final report itself; null when an earlier object encloses it. */
function ownProblems(reply: GeneratedReply): string | null {
  const found = locateEnvelope(reply.text, GenericOutput);
  expect(found.ok).toBe(false);
  if (found.start !== reply.finalStart) {
    // Only an earlier object that is never closed (`{"word more …`) may decide instead.
    expect(found.start).toBeLessThan(reply.finalStart);
    expect(found.end).toBe(reply.text.length);
    return null;
  }
  return found.ok ? "" : found.problems.map((problem) => problem.message).join("\n");
}

describe("envelope extraction under fuzzing (fixed seed)", () => {
  it("accepts exactly the agent's valid final report, byte for byte and with its status, when no other report disagrees, and nothing else", () => {
    const seen = new Map<FinalKind | "disagreeing", number>();
    fc.assert(
      fc.property(replyArbitrary, (reply) => {
        seen.set(reply.finalKind, (seen.get(reply.finalKind) ?? 0) + 1);
        const found = locateEnvelope(reply.text, GenericOutput);
        if (reply.finalKind === "valid" && !reportsAgree(reply)) {
          seen.set("disagreeing", (seen.get("disagreeing") ?? 0) + 1);
          expect(found.ok).toBe(false);
          expect(found.ok ? "" : found.problems.at(-1)?.message).toMatch(
            /^is ambiguous: \d+ reports give it as/,
          );
        } else if (reply.finalKind === "valid") {
          expect(found.ok).toBe(true);
          expect(reply.text.slice(found.start, found.end)).toBe(reply.finalText);
          expect(found.start).toBe(reply.finalStart);
          expect(found.ok && found.envelope.status).toBe(reply.finalStatus);
        } else {
          expect(found.ok).toBe(false);
        }
        const { start: _start, end: _end, ...parsed } = found;
        expect(parseEnvelope(reply.text, GenericOutput)).toEqual(parsed);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Every class was generated often enough to mean something.
    for (const kind of [...FINAL_KINDS, "disagreeing" as const])
      expect(seen.get(kind) ?? 0).toBeGreaterThan(RUNS / 40);
  });

  it("never lets an object nested in the final report, or in a cut-off one, stand on its own", () => {
    const finals = replyArbitrary.filter((r) => r.finalKind === "valid" || r.finalKind === "cut_off");
    fc.assert(
      fc.property(finals, (reply) => {
        const candidates = envelopeCandidates(reply.text);
        const from = reply.finalStart;
        const to = from + reply.finalText.length;
        expect(candidates.filter((c) => c.start > from && c.start < to)).toEqual([]);
        const own = candidates.find((c) => c.start === from);
        if (own === undefined) {
          // A cut-off report inside an earlier object that is never closed: that one reaches the end.
          expect(reply.finalKind).toBe("cut_off");
          expect(candidates.some((c) => c.start < from && c.end === reply.text.length)).toBe(true);
          return;
        }
        expect(own.end).toBe(reply.finalKind === "valid" ? to : reply.text.length);
        expect(own.cutOff).toBe(reply.finalKind === "cut_off");
      }),
      settings,
    );
  });

  it("names what is wrong with a final report that is not accepted", () => {
    const wrong = replyArbitrary.filter((r) => r.finalKind !== "valid" && r.finalKind !== "none");
    fc.assert(
      fc.property(wrong, (reply) => {
        const text = ownProblems(reply);
        if (text === null) return;
        if (reply.finalKind === "cut_off") expect(text).toMatch(/is cut off: the reply ends before/);
        if (reply.finalKind === "js_style") expect(text).toMatch(/is not JSON: its keys are bare words/);
        if (reply.finalKind === "py_dict") expect(text).toMatch(/is not JSON: its keys are in single quotes/);
        if (reply.finalKind === "repeated")
          expect(text).toMatch(/gives the key "status" twice|is given more than once/);
        if (reply.finalKind === "invalid") expect(text).not.toBe("");
        if (reply.finalKind === "control") {
          expect(text).toMatch(
            reply.finalText.includes("\u0000")
              ? /holds a raw NUL byte \(U\+0000\)/
              : /holds a raw control character \(U\+00(0|1)[0-9A-F]\)/,
          );
        }
      }),
      settings,
    );
  });

  it("never accepts a status that any report of the reply contradicts", () => {
    fc.assert(
      fc.property(replyArbitrary, (reply) => {
        const found = parseEnvelope(reply.text, GenericOutput);
        if (!found.ok) return;
        const stated = [...reply.otherStatuses, reply.writtenStatus].filter((s) => s !== null);
        for (const status of stated) expect(status).toBe(found.envelope.status);
      }),
      settings,
    );
  });

  it("extracts only values that are the JSON of their own span", () => {
    fc.assert(
      fc.property(replyArbitrary, (reply) => {
        const candidates = envelopeCandidates(reply.text);
        const values: unknown[] = [];
        let covered = 0;
        for (const candidate of candidates) {
          const span = reply.text.slice(candidate.start, candidate.end);
          expect(span.startsWith("{")).toBe(true);
          const { value, problems } = candidate.read();
          const enclosed = candidate.start < covered;
          covered = Math.max(covered, candidate.end);
          if (value !== undefined) {
            if (!enclosed) values.push(value);
            expect(problems).toEqual([]);
            expect(span.endsWith("}")).toBe(true);
            expect(Object.keys(value)).toEqual(expect.arrayContaining([...new Set(candidate.keys)]));
            let strict: unknown = value;
            try {
              strict = JSON.parse(span);
            } catch {
              // Not strict JSON: the value came from the one repair.
            }
            expect(value).toEqual(strict);
          } else {
            expect(problems.length).toBeGreaterThan(0);
          }
        }
        expect(extractJsonCandidates(reply.text)).toEqual(values);
      }),
      settings,
    );
  });
});
