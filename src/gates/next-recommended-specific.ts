import { shortenText } from "../util/shorten-text.js";
import { defineGate, type Gate } from "./gate.js";

/** Any envelope with the Markdown contract's `next_recommended`. */
export interface NextRecommendedClaim {
  next_recommended?: string;
}

/** Words that carry no direction on their own: advice made only of these says nothing. */
const FILLER = new Set(
  (
    "continue continuing proceed proceeding next n/a na none nothing tbd todo keep going go on ahead carry move " +
    "do the a an to with and then phase phases step steps stage please now as planned usual ready for ok okay " +
    "done complete completed all good work it this that same more further forward onward onwards yes see " +
    "above below etc whatever accordingly normally just again is be"
  ).split(" "),
);

/** A token naming something concrete: a path, a command, an id, a version, a hyphenated phase name. */
const CONCRETE = /[/#@_]|\w[.-]\w|\d/;

/**
 * Why `text` is no specific advice on what comes next, or null when it is. Precisely: empty is
 * rejected; after lower-casing and stripping punctuation around each word, advice made only of filler
 * words ("continue", "proceed", "next", "n/a", "none", "tbd", "keep going", "do the next phase"…) is
 * vague; advice under 3 words is too short unless it names something concrete (inline code, or a word
 * holding `/`, `#`, `@`, `_`, a digit, or an inner `.` or `-`, such as `sdd-apply` or `src/a.ts`).
 * Never throws.
 */
export function vagueAdviceProblem(text: string | undefined): string | null {
  const advice = (text ?? "").trim();
  if (advice === "") return "is empty: say what should happen next";
  const hasCode = /`[^`]+`/.test(advice);
  const words = advice
    .split(/\s+/)
    .map((word) => word.toLowerCase().replace(/^[^\p{L}\p{N}/#@]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((word) => word !== "");
  const quoted = JSON.stringify(shortenText(advice, 60));
  if (words.every((word) => FILLER.has(word))) {
    return `${quoted} is vague: name the phase, file, command or blocker that comes next`;
  }
  if (words.length < 3 && !hasCode && !words.some((word) => CONCRETE.test(word))) {
    return `${quoted} is too short to be specific (${words.length} word${words.length === 1 ? "" : "s"}, no file, command or phase named)`;
  }
  return null;
}

/**
 * The Markdown contract's "be specific in Next Recommended": one check on `next_recommended`, failing
 * with `vagueAdviceProblem`'s reason, passing with the advice quoted. Never throws.
 */
export const nextRecommendedSpecific: Gate<NextRecommendedClaim> = defineGate<NextRecommendedClaim>(
  "nextRecommendedSpecific",
  (envelope, _context, report) => {
    const problem = vagueAdviceProblem(envelope.next_recommended);
    const advice = (envelope.next_recommended ?? "").trim();
    report.check("next_recommended", problem === null, problem ?? `specific: ${JSON.stringify(advice)}`);
  },
);
