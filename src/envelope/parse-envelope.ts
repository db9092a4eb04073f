import { zodIssueProblems } from "../util/zod-issues.js";
import type { EnvelopeProblem } from "./envelope-problem.js";
import { extractJsonCandidates } from "./extract-json.js";
import type { EnvelopeOf, OutputType } from "./output-type.js";

export type { EnvelopeProblem };

/** A valid envelope (zod output, defaults applied) with the JSON it came from, or the problems to correct. */
export type ParseEnvelopeResult<E> =
  | { ok: true; envelope: E; json: unknown }
  | { ok: false; problems: EnvelopeProblem[]; json: unknown | undefined };

/**
 * Finds the envelope in an agent's final message: the LAST JSON object in the text that validates
 * against `type` wins, so an agent may quote other JSON before its report. When none validates, the
 * problems are those of the last object found (`json` is that object); when there is no object at
 * all, one problem with path "" says so and `json` is undefined. Unknown keys are stripped, not errors.
 * Never throws, unless the type's own refinements or transforms do.
 *
 * @example
 * const result = parseEnvelope(finalMessage, ReviewOutput);
 * if (!result.ok) send(jsonCorrectionMessage(ReviewOutput, result.problems));
 */
export function parseEnvelope<T extends OutputType>(
  text: string,
  type: T,
): ParseEnvelopeResult<EnvelopeOf<T>> {
  const candidates = extractJsonCandidates(text);
  const last = candidates.length - 1;
  let lastProblems: EnvelopeProblem[] = [];
  for (let i = last; i >= 0; i--) {
    const json = candidates[i];
    const parsed = type.schema.safeParse(json);
    if (parsed.success) return { ok: true, envelope: parsed.data as EnvelopeOf<T>, json };
    if (i === last) lastProblems = zodIssueProblems(parsed.error.issues, { wording: "agent", value: json });
  }
  if (last < 0) {
    return {
      ok: false,
      problems: [{ path: "", message: "no JSON object was found in the reply" }],
      json: undefined,
    };
  }
  return { ok: false, problems: lastProblems, json: candidates[last] };
}
