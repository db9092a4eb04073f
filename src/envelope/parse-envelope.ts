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
 * Finds the envelope in an agent's final message by the door's grammar (docs/envelopes-and-gates.md):
 * the **final report** decides, alone. Reports are the objects naming a field of `type` among their own
 * keys (compared without case, escapes resolved, however many keys there are) or cut off; the final
 * one reaches furthest (a malformed or cut-off object covering later ones counts as later). It is the
 * envelope only when it validates and the reply is unambiguous: it gives no field twice in any
 * spelling, and no report of the reply states another `status`; else its problems and the ambiguity
 * are the result, with no fall-back to an earlier object. Dicts (single-quoted or bare keys) and
 * objects repeating a key never have a value. Only when no object is a report does the last object
 * that validates win, else the last object's problems; with no object at all, one problem with path ""
 * says so. Unknown keys are stripped, not errors. Never throws, unless the type's own refinements or
 * transforms do.
 *
 * @example
 * const found = locateEnvelope(reply, GenericOutput);
 * if (found.ok) console.log(reply.slice(found.start, found.end)); // the envelope exactly as written
 */
export function locateEnvelope<T extends OutputType>(text: string, type: T): LocatedEnvelope<EnvelopeOf<T>> {
  const everyStatus = new Set<string>();
  const candidates = envelopeCandidates(text, everyStatus);
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
  const fields = fieldsOf(type);
  const report = finalReport(candidates, fields);
  if (report !== undefined) {
    const judged = judge(report, type);
    const ambiguous = ambiguities(text, candidates, report, fields, everyStatus);
    if (ambiguous.length === 0) return judged;
    const own = judged.ok ? [] : judged.problems;
    return {
      ok: false,
      problems: [...own, ...ambiguous],
      json: judged.json,
      start: judged.start,
      end: judged.end,
    };
  }
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

/** A report: a cut-off object, or one naming a field of the type (compared without case). */
function isReport(candidate: EnvelopeCandidate, fields: Set<string>): boolean {
  return candidate.cutOff || candidate.keys.some((key) => fields.has(key.toLowerCase()));
}

/** The report reaching furthest; the outermost on a tie. */
function finalReport(candidates: EnvelopeCandidate[], fields: Set<string>): EnvelopeCandidate | undefined {
  let report: EnvelopeCandidate | undefined;
  for (const candidate of candidates) {
    if (isReport(candidate, fields) && (report === undefined || candidate.end > report.end))
      report = candidate;
  }
  return report;
}

/**
 * Why the reply does not say one thing, so that no report of it may be taken: the final report names
 * one field twice in different case (`"status"` and `"Status"`; a key repeated exactly is the scanner's
 * problem), or the reply's reports state different values of `status` (a failure report and a success
 * template, whatever their order, fences or syntax). Empty when it is unambiguous.
 */
function ambiguities(
  text: string,
  candidates: EnvelopeCandidate[],
  report: EnvelopeCandidate,
  fields: Set<string>,
  everyStatus: ReadonlySet<string>,
): EnvelopeProblem[] {
  const problems: EnvelopeProblem[] = [];
  const named = new Map<string, Set<string>>();
  for (const key of report.keys) {
    const field = key.toLowerCase();
    if (fields.has(field)) named.set(field, (named.get(field) ?? new Set()).add(key));
  }
  for (const [field, spellings] of named) {
    if (spellings.size < 2) continue;
    const list = [...spellings].map((key) => JSON.stringify(key)).join(" and ");
    problems.push({
      path: field,
      message: `is given more than once (${list}), so the report says two things at once; give it once, as ${JSON.stringify(field)}`,
    });
  }
  if (!fields.has("status")) return problems;
  const statuses = new Map<string, EnvelopeCandidate>();
  for (const candidate of candidates) {
    if (!isReport(candidate, fields)) continue;
    for (const value of candidate.stated("status")) if (!statuses.has(value)) statuses.set(value, candidate);
  }
  // Objects too many to keep (a report, then a thousand others, then a template) still state theirs.
  const stated = new Set([...everyStatus, ...statuses.keys()]);
  if (stated.size > 1) {
    const values = [...stated].map((value) => JSON.stringify(value)).join(" and ");
    const places = [...new Set(statuses.values())];
    const count = places.length > 1 ? String(places.length) : "the reply's";
    const where =
      places.length === 1 && statuses.size === stated.size
        ? `${objectAt(text, report)} gives it as ${values}`
        : `${count} reports give it as ${values} (${places.map((place) => objectAt(text, place)).join(", ")})`;
    problems.push({
      path: "status",
      message: `is ambiguous: ${where}; end the reply with exactly one JSON object, the report that is true, and quote no other`,
    });
  }
  return problems;
}

/** `the object starting `{"status": "fail", …``. */
function objectAt(text: string, candidate: EnvelopeCandidate): string {
  const head = JSON.stringify(text.slice(candidate.start, Math.min(candidate.end, candidate.start + 32)))
    .slice(1, -1)
    .replace(/\\"/g, '"')
    .replace(/`/g, "'");
  return `the object starting \`${head}${candidate.end > candidate.start + 32 ? "…" : ""}\``;
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
