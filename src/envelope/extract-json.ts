import { jsonrepair } from "jsonrepair";

/**
 * Only the last this-many top-level brace groups are parsed. A final message never holds that many,
 * and the bound keeps pathological input (megabytes of `{"a"}{"a"}…`, each a thrown SyntaxError) cheap.
 */
const maxExaminedGroups = 1000;
/** jsonrepair is far slower than JSON.parse, so it only sees envelope-sized spans, and only so many in total. */
const maxRepairSpan = 256 * 1024;
const repairBudget = 512 * 1024;
/** Open braces remembered at once; a power of two, used as a ring. */
const maxDepth = 4096;

const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const comma = 0x2c;
const colon = 0x3a;
const doubleQuote = 0x22;
const singleQuote = 0x27;
const backslash = 0x5c;
const newline = 0x0a;

/**
 * Every JSON object in `text`, in document order: a bare object, objects inside ```json fences, and
 * objects wrapped in prose. Only top-level objects count; nested ones come inside their parent. A span
 * that JSON.parse rejects gets one `jsonrepair` attempt (trailing commas, single quotes, unquoted keys).
 * Runs in one linear pass with bounded memory. Guards against pathological input: only the last 1000
 * top-level brace groups are parsed, braces nested deeper than 4096 are forgotten, and jsonrepair only
 * sees spans up to 256 KiB (512 KiB in total, spent from the end backwards). Never throws.
 *
 * @example extractJsonCandidates('Done: {"status": "success"}') // [{ status: "success" }]
 */
export function extractJsonCandidates(text: string): unknown[] {
  const spans = topLevelSpans(text);
  const found: unknown[] = [];
  let repairLeft = repairBudget;
  // Walk backwards so the repair budget goes to the spans nearest the end, where the envelope sits.
  for (let group = spans.length / 2 - 1; group >= 0; group--) {
    const span = text.slice(spans[group * 2], spans[group * 2 + 1]);
    let value = looksLikeJson(span) ? parseStrict(span) : undefined;
    if (value === undefined && span.length <= Math.min(maxRepairSpan, repairLeft)) {
      repairLeft -= span.length;
      value = parseRepaired(span);
    }
    if (value !== undefined) found.push(value);
  }
  return found.reverse();
}

/**
 * Flat `[start, end, start, end, …]` of the last `maxExaminedGroups` balanced `{…}` groups that are not
 * nested in another balanced group. One pass with a stack of open braces: an unclosed `{` (prose, or
 * megabytes of `{{{{`) simply leaves the balanced groups after it top-level. Quotes are tracked only
 * inside an open brace, since prose apostrophes and stray quotes must not hide the JSON that follows.
 */
function topLevelSpans(text: string): number[] {
  // Open braces live in a ring: past `maxDepth` the oldest are forgotten, which only ever costs a
  // group no envelope has (deeper than 4096), and keeps megabytes of `{{{{` at constant memory.
  const open = new Int32Array(maxDepth);
  let pushed = 0;
  let depth = 0;
  // Recorded groups, sorted and disjoint; compacted to the newest ones so memory stays bounded.
  const spans = new Int32Array(maxExaminedGroups * 4);
  let spanEnd = 0;
  let quote = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === backslash) i++;
      // JSON strings cannot hold a raw newline, so a newline resynchronises after an unbalanced quote.
      else if (c === quote || c === newline) quote = 0;
      continue;
    }
    if (c === openBrace) {
      open[pushed++ & (maxDepth - 1)] = i;
      if (depth < maxDepth) depth++;
    } else if (c === closeBrace && depth > 0) {
      depth--;
      const start = open[--pushed & (maxDepth - 1)] ?? 0;
      // Groups recorded since `start` are nested in this one.
      while (spanEnd > 0 && (spans[spanEnd - 2] ?? -1) > start) spanEnd -= 2;
      if (spanEnd === spans.length) {
        spans.copyWithin(0, spans.length / 2);
        spanEnd = spans.length / 2;
      }
      spans[spanEnd++] = start;
      spans[spanEnd++] = i + 1;
    } else if (depth > 0 && (c === doubleQuote || (c === singleQuote && opensValue(text, i)))) {
      quote = c;
    }
  }
  return Array.from(spans.subarray(Math.max(0, spanEnd - maxExaminedGroups * 2), spanEnd));
}

/**
 * A single quote at `at` starts a string only where a JSON key or value can start; elsewhere it is an
 * apostrophe. The look-back stops at the first non-blank character, so total look-back stays linear.
 */
function opensValue(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && text.charCodeAt(i) <= 0x20) i--;
  const previous = text.charCodeAt(i);
  return previous === openBrace || previous === openBracket || previous === comma || previous === colon;
}

/** Strict JSON can only begin `{"` or `{}`; skipping other spans saves a thrown SyntaxError each. */
function looksLikeJson(span: string): boolean {
  for (let i = 1; i < span.length; i++) {
    const c = span.charCodeAt(i);
    if (c > 0x20) return c === doubleQuote || c === closeBrace;
  }
  return false;
}

function parseStrict(span: string): object | undefined {
  try {
    return asObject(JSON.parse(span));
  } catch {
    return undefined;
  }
}

function parseRepaired(span: string): object | undefined {
  try {
    return asObject(JSON.parse(jsonrepair(span)));
  } catch {
    return undefined;
  }
}

function asObject(value: unknown): object | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
}
