/**
 * What the brace scanner (`scan-objects.ts`) records of an object, and how it notes keys: every key as
 * JSON.parse would name it, repeats within one object, and the scalar value of each top-level member.
 */

const doubleQuote = 0x22;
const singleQuote = 0x27;

/** One object found by `scanObjects`. Offsets are UTF-16 indexes into the scanned text. */
export interface ScannedObject {
  /** Index of its `{`. */
  start: number;
  /** Index after its closing `}`, or the text's length when it never closes. */
  end: number;
  /** `json`: its first key is double-quoted; `js`: single-quoted or a bare word (only kept when it closes). */
  style: "json" | "js";
  /** A matching `}` was found. */
  closed: boolean;
  /** Where the grammar broke (a malformed JSON-style object), else -1. */
  errorAt: number;
  /** What the grammar wanted at `errorAt` ("" when it did not break). */
  expected: string;
  /** It follows the grammar but is not strict JSON: single quotes, bare words, trailing commas, raw tabs or newlines in strings. */
  needsRepair: boolean;
  /** The first raw control character other than tab, LF and CR inside it, else -1. */
  controlAt: number;
  /** Its own (top-level) members in order, every one of them: keys with escapes resolved. */
  members: ScannedMember[];
  /** Where the first key at any depth that is not a double-quoted string starts, else -1. */
  loneQuoteKeyAt: number;
  /** Where the first key at any depth that repeats a key of its own object starts, else -1. */
  repeatedAt: number;
  /** That repeated key, escapes resolved ("" when none). */
  repeatedKey: string;
}

/** One top-level member of a scanned object. */
export interface ScannedMember {
  /** The key with its escapes resolved (as written when it is not a double-quoted string). */
  key: string;
  /** A scalar value's span (a string's content without its quotes, or a bare word); from is -1 for none. */
  valueFrom: number;
  valueTo: number;
  /** The value's quote: `"`, `'`, or 0 for a bare word. */
  valueQuote: number;
}

/**
 * Notes the key written at `text[from, to)` (quotes included when it has them): a member when it is
 * the object's own, and a repeat when its object already has it (compared after resolving escapes).
 */
export function addKey(
  object: ScannedObject,
  seenKeys: Set<string>[],
  depth: number,
  text: string,
  from: number,
  to: number,
): void {
  const key = keyText(text, from, to);
  const seen = seenKeys[seenKeys.length - 1];
  if (seen !== undefined) {
    if (seen.has(key) && object.repeatedAt < 0) {
      object.repeatedAt = from;
      object.repeatedKey = key;
    }
    seen.add(key);
  }
  if (depth === 1) object.members.push({ key, valueFrom: -1, valueTo: -1, valueQuote: 0 });
}

/** A key as JSON.parse would name it: a double-quoted one with its escapes resolved; others as written. */
function keyText(text: string, from: number, to: number): string {
  const quote = text.charCodeAt(from);
  if (quote !== doubleQuote)
    return quote === singleQuote ? text.slice(from + 1, to - 1) : text.slice(from, to);
  const raw = text.slice(from, to);
  if (!raw.includes("\\")) return raw.slice(1, -1);
  try {
    const key: unknown = JSON.parse(raw);
    return typeof key === "string" ? key : raw.slice(1, -1);
  } catch {
    return raw.slice(1, -1);
  }
}

/** Records the scalar value of the object's last member. */
export function setValue(object: ScannedObject, from: number, to: number, quote: number): void {
  const member = object.members[object.members.length - 1];
  if (member === undefined || member.valueFrom >= 0) return;
  member.valueFrom = from;
  member.valueTo = to;
  member.valueQuote = quote;
}
