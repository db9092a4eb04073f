import { requireOnce } from "../util/require-once.js";
import type { EnvelopeProblem } from "./envelope-problem.js";
import { type ScannedObject, scanObjects } from "./scan-objects.js";

// jsonrepair loads (from node_modules, not the bundle) only when a reply needs repairing.
const loadJsonRepair = requireOnce<typeof import("jsonrepair")>("jsonrepair");

/** Only the last this-many objects are parsed: a final message never holds that many. */
const maxParsedObjects = 1000;
/** jsonrepair is far slower than JSON.parse, so it only sees envelope-sized spans, and only so many in total. */
const maxRepairSpan = 256 * 1024;
const repairBudget = 512 * 1024;

/** What an object of a reply holds: the parsed object, or why it is none (problems with path ""). */
export type CandidateContent =
  | { value: object; problems: [] }
  | { value: undefined; problems: EnvelopeProblem[] };

/** One object of a reply, as the envelope picker sees it. Offsets are UTF-16 indexes into the reply. */
export interface EnvelopeCandidate {
  /** Index of its `{`. */
  start: number;
  /** Index after its `}`, or the reply's length when it never closes (then it covers all that follows). */
  end: number;
  /** Its own keys, every one, as JSON.parse would name them (escapes resolved, quotes removed). */
  keys: string[];
  /**
   * What it states for `field`: the scalar value of every own member whose key is `field` compared
   * without case, escapes resolved, trimmed and lower-cased (`{"status": "fail", "Status": "success"}`
   * states both). A value that is an object or array states nothing.
   */
  stated(field: string): string[];
  /** The reply ends inside this JSON object: it was cut off, whatever it holds. */
  cutOff: boolean;
  /**
   * Parses it on the first call (later calls return the same result): a value only for a closed
   * object whose keys are all double-quoted and unrepeated, after at most one repair from the reply's
   * shared repair budget.
   */
  read(): CandidateContent;
}

/**
 * Every object of `text` that is not nested in another, in document order (the door's grammar:
 * docs/envelopes-and-gates.md, and `scan-objects.ts`): bare, in ```json fences or wrapped in prose;
 * only the last 1000 count, but `statuses`, when given, receives what every object states for
 * `status` (see {@link EnvelopeCandidate.stated}). Scanning is eager, parsing lazy (`read()`). A closed object whose keys, at
 * every depth, are double-quoted strings, none given twice in its object, is parsed as JSON; when
 * JSON.parse rejects it (single-quoted values, bare-word values, trailing or missing commas, raw tabs
 * or newlines in strings: the scanner's grammar admits nothing else) it gets one `jsonrepair` attempt,
 * on spans up to 256 KiB and 512 KiB per reply in total, in the order objects are read (read from the
 * end backwards, as the picker does, to spend it where the envelope sits). Anything else reads as
 * named problems and no value: a cut-off object, a malformed one, a dict (`{status: success}`,
 * `{'status': 'success'}`), a repeated key, a raw NUL or other control character. Never throws.
 *
 * @example envelopeCandidates('Done: {"status": "success"}')[0]?.read().value // { status: "success" }
 */
export function envelopeCandidates(text: string, statuses?: Set<string>): EnvelopeCandidate[] {
  const budget = { left: repairBudget };
  // What every object of the reply states for `status`, those beyond the last 1000 included.
  const note =
    statuses &&
    ((object: ScannedObject) => {
      for (const value of statedValues(text, object, "status")) statuses.add(value);
    });
  return scanObjects(text, note)
    .slice(-maxParsedObjects)
    .map((object) => {
      let content: CandidateContent | undefined;
      return {
        start: object.start,
        end: object.end,
        keys: object.members.map((member) => member.key),
        stated: (field) => statedValues(text, object, field),
        cutOff: !object.closed && object.errorAt < 0,
        read() {
          content ??= readObject(text, object, budget);
          return content;
        },
      };
    });
}

/**
 * The JSON objects of `text`, in document order: the values of {@link envelopeCandidates}. Objects
 * nested in another come only inside their parent, and cut-off, malformed and JS/YAML-style objects
 * are left out, with whatever lies inside their extent. Never throws.
 *
 * @example extractJsonCandidates('Done: {"status": "success"}') // [{ status: "success" }]
 */
export function extractJsonCandidates(text: string): unknown[] {
  const candidates = envelopeCandidates(text);
  // Read from the end backwards, so the repair budget goes to the objects nearest the end.
  for (let i = candidates.length - 1; i >= 0; i--) candidates[i]?.read();
  const values: unknown[] = [];
  let covered = 0;
  for (const candidate of candidates) {
    const { value } = candidate.read();
    if (value !== undefined && candidate.start >= covered) values.push(value);
    covered = Math.max(covered, candidate.end);
  }
  return values;
}

/** A scanned object's content: the scanner's problems, else the (repaired) JSON or why it does not parse. */
function readObject(text: string, object: ScannedObject, budget: { left: number }): CandidateContent {
  const problems = scanProblems(text, object);
  if (problems.length > 0) return { value: undefined, problems };
  const span = text.slice(object.start, object.end);
  let parsed = object.needsRepair ? failure("it is not strict JSON") : parseStrict(span);
  if (parsed.error !== undefined) {
    if (span.length <= Math.min(maxRepairSpan, budget.left)) {
      budget.left -= span.length;
      parsed = parseRepaired(span);
    } else parsed = failure(`it is ${Math.ceil(span.length / 1024)} KiB, too large to repair`);
  }
  if (parsed.value !== undefined) return { value: parsed.value, problems: [] };
  const message = `${describe(text, object)} is not valid JSON: ${parsed.error}`;
  return { value: undefined, problems: [{ path: "", message }] };
}

/** See {@link EnvelopeCandidate.stated}. */
function statedValues(text: string, object: ScannedObject, field: string): string[] {
  const name = field.toLowerCase();
  const values: string[] = [];
  for (const member of object.members) {
    if (member.valueFrom < 0 || member.key.toLowerCase() !== name) continue;
    const raw = text.slice(member.valueFrom, member.valueTo);
    values.push(decodeScalar(raw, member.valueQuote).trim().toLowerCase());
  }
  return values;
}

/** A double-quoted string's content with its escapes resolved; other scalars as written. */
function decodeScalar(raw: string, quote: number): string {
  if (quote !== 0x22 || !raw.includes("\\")) return raw;
  try {
    const value: unknown = JSON.parse(`"${raw}"`);
    return typeof value === "string" ? value : raw;
  } catch {
    return raw;
  }
}

/** The problems the scanner already saw, worded for the agent. */
function scanProblems(text: string, object: ScannedObject): EnvelopeProblem[] {
  const problems: EnvelopeProblem[] = [];
  const clean = object.errorAt < 0 && object.closed && object.controlAt < 0;
  if (clean && object.loneQuoteKeyAt < 0 && object.repeatedAt < 0) return problems;
  const what = describe(text, object);
  if (object.loneQuoteKeyAt >= 0) {
    const single = text.charCodeAt(object.loneQuoteKeyAt) === 0x27;
    const how = single ? "in single quotes" : "bare words";
    const where =
      object.style === "js"
        ? ""
        : ` (at \`${excerpt(text, object.loneQuoteKeyAt, object.loneQuoteKeyAt + 16)}\`)`;
    problems.push({
      path: "",
      message: `${what} is not JSON: its keys are ${how}${where}; write the envelope as JSON, keys in double quotes`,
    });
  } else if (object.repeatedAt >= 0) {
    const key = JSON.stringify(object.repeatedKey);
    const where = excerpt(text, object.repeatedAt, object.repeatedAt + 24);
    problems.push({
      path: "",
      message: `${what} gives the key ${key} twice (again at \`${where}\`), so it says two things at once; give every key once`,
    });
  }
  if (object.loneQuoteKeyAt >= 0 || object.style === "js") {
    // Never repaired, so nothing more to say about its syntax.
  } else if (object.errorAt >= 0) {
    const where = excerpt(text, object.errorAt, object.errorAt + 16);
    const unclosed = object.closed ? "" : ", and it is never closed";
    problems.push({
      path: "",
      message: `${what} is not valid JSON: expected ${object.expected} at \`${where}\`${unclosed}`,
    });
  } else if (!object.closed) {
    problems.push({
      path: "",
      message: `${what} is cut off: the reply ends before its closing "}"; reply with the complete object`,
    });
  }
  if (object.controlAt >= 0) problems.push({ path: "", message: controlProblem(text, object, what) });
  return problems;
}

/** Names a raw NUL byte or other control character and says where it is. */
function controlProblem(text: string, object: ScannedObject, what: string): string {
  const code = text.charCodeAt(object.controlAt);
  const hex = code.toString(16).padStart(4, "0");
  const name = code === 0 ? "a raw NUL byte (U+0000)" : `a raw control character (U+${hex.toUpperCase()})`;
  const before = excerpt(text, Math.max(object.start, object.controlAt - 24), object.controlAt);
  return `${what} holds ${name} right after \`${before}\`; remove it (inside a string, write it as \\u${hex})`;
}

/** `the object starting `{"status": "fail", "sum…``, readable whatever the span holds. */
function describe(text: string, object: ScannedObject): string {
  const head = excerpt(text, object.start, Math.min(object.end, object.start + 32));
  const more = object.end > object.start + 32 ? "…" : "";
  return `the ${object.style === "js" ? "" : "JSON "}object starting \`${head}${more}\``;
}

/** `text[from, to)` on one line, control characters escaped and backticks replaced. */
function excerpt(text: string, from: number, to: number): string {
  return JSON.stringify(text.slice(from, Math.min(to, text.length)))
    .slice(1, -1)
    .replace(/\\"/g, '"')
    .replace(/`/g, "'");
}

type Parsed = { value: object; error?: undefined } | { value?: undefined; error: string };

const failure = (error: string): Parsed => ({ error });

function parseStrict(span: string): Parsed {
  try {
    return asObject(JSON.parse(span));
  } catch (error) {
    return failure(error instanceof Error ? error.message : String(error));
  }
}

function parseRepaired(span: string): Parsed {
  try {
    return asObject(JSON.parse(loadJsonRepair().jsonrepair(span)));
  } catch (error) {
    return failure(error instanceof Error ? error.message : String(error));
  }
}

function asObject(value: unknown): Parsed {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? { value }
    : failure("it is not an object");
}
