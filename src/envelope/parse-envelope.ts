import { zodIssueProblems } from "../util/zod-issues.js";
import type { EnvelopeProblem } from "./envelope-problem.js";
import { type EnvelopeCandidate, envelopeCandidates } from "./extract-json.js";
import type { EnvelopeOf, OutputType } from "./output-type.js";

export type { EnvelopeProblem };

/** A valid envelope (zod output, defaults applied) with the JSON it came from, or the problems to correct. */
export type ParseEnvelopeResult<E> =
  | { ok: true; envelope: E; json: unknown }
  | { ok: false; problems: EnvelopeProblem[]; json: unknown | undefined };

/**
 * {@link ParseEnvelopeResult} plus where the deciding object sits in the reply: `text.slice(start, end)`
 * is its exact source; both are -1 when the reply holds no object at all.
 */
export type LocatedEnvelope<E> = ParseEnvelopeResult<E> & { start: number; end: number };

/**
 * Finds the envelope in an agent's final message: the agent's **final report** decides, valid or not.
 * The final report is the last object that names a field of `type` (`status`, `summary`, … compared
 * without case), or that the reply ends inside (cut off); an object whose extent covers later ones (a
 * malformed or cut-off report) is later than all of them. Objects naming none of the type's fields
 * (`{"port": 8080}`) are quoted data, skipped. When the final report validates it is the envelope; else
 * its problems are the result, with no fall-back to an earlier object. Only when no object names a field
 * does the last object that validates win, else the last object's problems; with no object at all, one
 * problem with path "" says so. Unknown keys are stripped, not errors. Never throws, unless the type's
 * own refinements or transforms do.
 *
 * @example
 * const found = locateEnvelope(reply, GenericOutput);
 * if (found.ok) console.log(reply.slice(found.start, found.end)); // the envelope exactly as written
 */
export function locateEnvelope<T extends OutputType>(text: string, type: T): LocatedEnvelope<EnvelopeOf<T>> {
  const candidates = envelopeCandidates(text);
  const last = candidates.at(-1);
  if (last === undefined) {
    return {
      ok: false,
      problems: [{ path: "", message: "no JSON object was found in the reply" }],
      json: undefined,
      start: -1,
      end: -1,
    };
  }
  const report = finalReport(candidates, fieldsOf(type));
  if (report !== undefined) return judge(report, type);
  for (let i = candidates.length - 1; i >= 0; i--) {
    const candidate = candidates[i] as EnvelopeCandidate;
    if (candidate.read().value === undefined) continue;
    const judged = judge(candidate, type);
    if (judged.ok) return judged;
  }
  return judge(last, type);
}

/**
 * Finds and validates the envelope in an agent's final message (the rules: {@link locateEnvelope}).
 *
 * @example
 * const result = parseEnvelope(finalMessage, ReviewOutput);
 * if (!result.ok) send(jsonCorrectionMessage(ReviewOutput, result.problems));
 */
export function parseEnvelope<T extends OutputType>(
  text: string,
  type: T,
): ParseEnvelopeResult<EnvelopeOf<T>> {
  const { start: _start, end: _end, ...result } = locateEnvelope(text, type);
  return result;
}

/** The type's top-level field names, lower-cased. */
function fieldsOf(type: OutputType): Set<string> {
  return new Set(Object.keys(type.schema.shape).map((key) => key.toLowerCase()));
}

/** The candidate reaching furthest among those that are envelope attempts; the outermost on a tie. */
function finalReport(candidates: EnvelopeCandidate[], fields: Set<string>): EnvelopeCandidate | undefined {
  let report: EnvelopeCandidate | undefined;
  for (const candidate of candidates) {
    const attempt = candidate.cutOff || candidate.keys.some((key) => fields.has(key.toLowerCase()));
    if (attempt && (report === undefined || candidate.end > report.end)) report = candidate;
  }
  return report;
}

function judge<T extends OutputType>(candidate: EnvelopeCandidate, type: T): LocatedEnvelope<EnvelopeOf<T>> {
  const { start, end } = candidate;
  const { value: json, problems: scanned } = candidate.read();
  if (json === undefined) return { ok: false, problems: scanned, json, start, end };
  const parsed = type.schema.safeParse(json);
  if (parsed.success) return { ok: true, envelope: parsed.data as EnvelopeOf<T>, json, start, end };
  const problems = zodIssueProblems(parsed.error.issues, { wording: "agent", value: json });
  return { ok: false, problems, json, start, end };
}
