import { addKey, type ScannedMember, type ScannedObject, setValue } from "./scanned-object.js";

export type { ScannedMember, ScannedObject };

/**
 * The brace scanner under envelope extraction: finds the objects a reply really contains, in one
 * linear pass with bounded memory, and never promotes an object nested in another one.
 *
 * A `{` starts an object only when the next non-blank character is a double quote (`{"status"`: JSON,
 * perhaps needing repair), a single quote or a letter (`{'status': 'success'}`, `{status: success}`:
 * a Python/JS/YAML-style dict, never JSON), or the end of the text (a JSON object cut off right after
 * its brace, unless another `{` precedes it). Every other brace is prose, `{}` included. From such a
 * `{` a permissive JSON grammar is followed (strings in either quote, bare words, trailing commas, a
 * missing comma before a double-quoted string or between array items, nested objects and arrays):
 * - it closes: one object; what is inside it is part of it;
 * - the reply ends inside a JSON-style object (cut off): one object reaching the end; nothing inside it
 *   counts on its own;
 * - the grammar breaks before the first key's colon, or anywhere in a JS-style object: the brace was
 *   prose (`{"status" is required`, `{ stray`), and scanning resumes right after it;
 * - the grammar breaks later in a JSON-style object (`{"status": "fail", oops}`): one malformed object
 *   whose extent runs to its matching brace (or the end); scanning resumes at the error, so whoever
 *   picks the envelope decides whether that extent hides what follows.
 */

/** Objects kept: the newest this-many, plus the few whose extent reaches past the oldest of them. */
const keptObjects = 1000;
const keptEnclosing = 64;
/** Open objects and arrays followed at once; deeper nesting is a grammar error. */
const maxDepth = 4096;

const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;
const colon = 0x3a;
const doubleQuote = 0x22;
const singleQuote = 0x27;
const backslash = 0x5c;
const newline = 0x0a;

const expectKey = 0;
const expectColon = 1;
const expectValue = 2;
const expectComma = 3;
const inObject = 1;
const inArray = 2;

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09 || c === newline || c === 0x0d;
const isControl = (c: number): boolean => c < 0x20 && !isBlank(c);
/** Characters of a bare word: anything printable but JSON's punctuation and quotes. */
const isBare = (c: number): boolean =>
  c > 0x20 &&
  c !== openBrace &&
  c !== closeBrace &&
  c !== openBracket &&
  c !== closeBracket &&
  c !== comma &&
  c !== colon &&
  c !== doubleQuote &&
  c !== singleQuote;
const isLetter = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
const jsonLiteral = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

/** How one attempt to read an object from a `{` ended. */
type ReadOutcome =
  | { kind: "object"; object: ScannedObject }
  | { kind: "prose"; readTo: number }
  | { kind: "malformed"; object: ScannedObject; objectsOpen: number };

/**
 * Every object in `text` that is not nested in another, in document order (see the module comment for
 * the rules). Linear time, within two budgets of twice the text's length each: the extents of malformed
 * objects (once spent, the next malformed object is taken to reach the end and scanning stops), and
 * the reading of braces that turn out to be prose (once spent, JS-style braces are prose unread).
 * Keeps at most the newest 1000 objects plus up to 64 older ones whose extent covers them; `onObject`
 * sees every object found, in order. Never throws.
 *
 * @example scanObjects('Note { this. {"status": "success"}')[0] // { start: 13, end: 34, style: "json", closed: true, … }
 */
export function scanObjects(text: string, onObject?: (object: ScannedObject) => void): ScannedObject[] {
  const objects = new KeptObjects();
  // Every object found passes `onObject`, also those the bound on kept objects later drops.
  const kept = {
    add(object: ScannedObject): void {
      onObject?.(object);
      objects.add(object);
    },
    list: () => objects.list(),
  };
  const stack = new Uint8Array(maxDepth);
  let skipBudget = 2 * text.length + 65_536;
  let proseBudget = 2 * text.length + 65_536;
  let from = 0;
  for (;;) {
    const open = text.indexOf("{", from);
    if (open < 0) break;
    const style = openerStyle(text, open);
    if (style === null || (style === "js" && proseBudget <= 0)) {
      from = open + 1;
      continue;
    }
    const outcome = readObject(text, open, style, stack);
    if (outcome.kind === "prose") {
      proseBudget -= outcome.readTo - open;
      from = open + 1;
      continue;
    }
    const object = outcome.object;
    if (outcome.kind === "object") {
      kept.add(object);
      if (!object.closed) break;
      from = object.end;
      continue;
    }
    if (skipBudget <= 0) {
      kept.add(object);
      break;
    }
    const extent = matchingBrace(text, object.errorAt, outcome.objectsOpen);
    skipBudget -= extent.end - object.errorAt;
    object.end = extent.end;
    object.closed = extent.closed;
    if (extent.controlAt >= 0 && object.controlAt < 0) object.controlAt = extent.controlAt;
    kept.add(object);
    from = object.errorAt;
  }
  return kept.list();
}

/**
 * `json` for `{` + blanks + a double quote, or + blanks to the end (a report cut off right after its
 * brace; not after another `{`: a run of braces is prose); `js` for `{` + blanks + a single quote or a
 * letter; else null (a prose brace, or `{}`).
 */
function openerStyle(text: string, open: number): "json" | "js" | null {
  let i = open + 1;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  if (i === text.length) return text.charCodeAt(open - 1) === openBrace ? null : "json";
  const c = text.charCodeAt(i);
  if (c === doubleQuote) return "json";
  return c === singleQuote || isLetter(c) ? "js" : null;
}

/** Follows the permissive grammar from the `{` at `open`. */
function readObject(text: string, open: number, style: "json" | "js", stack: Uint8Array): ReadOutcome {
  const object: ScannedObject = {
    start: open,
    end: text.length,
    style,
    closed: false,
    errorAt: -1,
    expected: "",
    needsRepair: false,
    controlAt: -1,
    members: [],
    loneQuoteKeyAt: -1,
    repeatedAt: -1,
    repeatedKey: "",
  };
  // The keys seen so far in each open object, to find one given twice (JSON.parse keeps the last).
  const seenKeys: Set<string>[] = [new Set()];
  let depth = 0;
  let objectsOpen = 0;
  stack[depth++] = inObject;
  objectsOpen++;
  let state = expectKey;
  let committed = false;
  let afterComma = false;
  let lastWasBare = false;
  /** Where the key being read starts when it is not double-quoted, else -1. */
  let loneKeyAt = -1;
  const broken = (at: number, expected: string): ReadOutcome => {
    if (style === "js" || !committed) return { kind: "prose", readTo: at };
    object.errorAt = at;
    object.expected = expected;
    return { kind: "malformed", object, objectsOpen };
  };
  const n = text.length;
  let i = open + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isBlank(c)) {
      i++;
      continue;
    }
    if (isControl(c)) {
      if (object.controlAt < 0) object.controlAt = i;
      i++;
      continue;
    }
    const top = stack[depth - 1];
    if (
      state === expectComma &&
      (c === doubleQuote || (top === inArray && (c === openBrace || c === openBracket)))
    ) {
      // A missing comma between members or items (`"a": 1 "b": 2`), which repair inserts.
      object.needsRepair = true;
      state = top === inObject ? expectKey : expectValue;
    }
    if (c === doubleQuote || c === singleQuote) {
      if (state !== expectKey && state !== expectValue) return broken(i, expectedAfter(state, top));
      if (c === singleQuote) object.needsRepair = true;
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === backslash) j += 2;
        else if (d === c) break;
        else {
          if (d < 0x20) {
            if (isBlank(d)) object.needsRepair = true;
            else if (object.controlAt < 0) object.controlAt = j;
          }
          j++;
        }
      }
      if (j >= n) break;
      if (state === expectKey) {
        loneKeyAt = c === singleQuote ? i : -1;
        addKey(object, seenKeys, depth, text, i, j + 1);
        state = expectColon;
      } else {
        if (depth === 1) setValue(object, i + 1, j, c);
        state = expectComma;
      }
      afterComma = false;
      lastWasBare = false;
      i = j + 1;
      continue;
    }
    if (isBare(c)) {
      let j = i + 1;
      while (j < n && (isBare(text.charCodeAt(j)) || (style === "js" && apostrophe(text, j)))) j++;
      if (state === expectKey) {
        loneKeyAt = i;
        addKey(object, seenKeys, depth, text, i, j);
        state = expectColon;
      } else if (state === expectValue) {
        if (!jsonLiteral.test(text.slice(i, j))) object.needsRepair = true;
        if (depth === 1) setValue(object, i, j, 0);
        state = expectComma;
      } else if (!(state === expectComma && style === "js" && lastWasBare)) {
        // Only a JS/YAML-style value may run on over several words (`{summary: tests pass}`).
        return broken(i, expectedAfter(state, top));
      }
      afterComma = false;
      lastWasBare = state === expectComma;
      i = j;
      continue;
    }
    lastWasBare = false;
    if (c === openBrace || c === openBracket) {
      if (state !== expectValue || depth === maxDepth) return broken(i, expectedAfter(state, top));
      stack[depth++] = c === openBrace ? inObject : inArray;
      if (c === openBrace) {
        objectsOpen++;
        seenKeys.push(new Set());
      }
      state = c === openBrace ? expectKey : expectValue;
      afterComma = false;
    } else if (c === closeBrace || c === closeBracket) {
      const closes = c === closeBrace ? inObject : inArray;
      const ready = state === expectComma || state === (closes === inObject ? expectKey : expectValue);
      if (top !== closes || !ready) return broken(i, expectedAfter(state, top));
      if (afterComma) object.needsRepair = true;
      afterComma = false;
      depth--;
      if (closes === inObject) {
        objectsOpen--;
        seenKeys.pop();
      }
      state = expectComma;
      if (depth === 0) {
        object.end = i + 1;
        object.closed = true;
        return { kind: "object", object };
      }
    } else if (c === comma) {
      if (state !== expectComma) return broken(i, expectedAfter(state, top));
      state = top === inObject ? expectKey : expectValue;
      afterComma = true;
    } else if (c === colon) {
      if (state !== expectColon) return broken(i, expectedAfter(state, top));
      if (depth === 1) committed = true;
      // A key only once its colon follows: `{"status": "fail", oops}` broke at a word, not a key.
      if (loneKeyAt >= 0 && object.loneQuoteKeyAt < 0) object.loneQuoteKeyAt = loneKeyAt;
      state = expectValue;
    }
    i++;
  }
  // The text ended inside the object: a cut-off JSON object, or a prose brace in JS style.
  return style === "js" ? { kind: "prose", readTo: n } : { kind: "object", object };
}

/** A single quote inside a word (`it's`), which a JS/YAML-style value may hold. */
function apostrophe(text: string, at: number): boolean {
  return text.charCodeAt(at) === singleQuote && isLetter(text.charCodeAt(at + 1));
}

function expectedAfter(state: number, top: number | undefined): string {
  if (state === expectKey) return top === inObject ? 'a quoted key or "}"' : "a value";
  if (state === expectColon) return '":" after the key';
  if (state === expectValue) return "a value";
  return top === inObject ? '"," or "}"' : '"," or "]"';
}

/**
 * Where a malformed object ends: from `from`, with `objectsOpen` braces open, the index after the
 * brace that closes them, or the text's length. Double-quoted strings are skipped (a newline ends an
 * unbalanced one); a single quote opens a string only where a value can start.
 */
function matchingBrace(
  text: string,
  from: number,
  objectsOpen: number,
): { end: number; closed: boolean; controlAt: number } {
  let depth = objectsOpen;
  let quote = 0;
  let controlAt = -1;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isControl(c) && controlAt < 0) controlAt = i;
    if (quote !== 0) {
      if (c === backslash) i++;
      else if (c === quote || c === newline) quote = 0;
      continue;
    }
    if (c === openBrace) depth++;
    else if (c === closeBrace) {
      depth--;
      if (depth === 0) return { end: i + 1, closed: true, controlAt };
    } else if (c === doubleQuote || (c === singleQuote && opensValue(text, i))) quote = c;
  }
  return { end: text.length, closed: false, controlAt };
}

/** A single quote at `at` starts a string only where a key or value can start; elsewhere it is an apostrophe. */
function opensValue(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && text.charCodeAt(i) <= 0x20) i--;
  const previous = text.charCodeAt(i);
  return previous === openBrace || previous === openBracket || previous === comma || previous === colon;
}

/** The objects kept while scanning, bounded (see {@link scanObjects}); added in document order. */
class KeptObjects {
  private objects: ScannedObject[] = [];

  add(object: ScannedObject): void {
    this.objects.push(object);
    if (this.objects.length < 2 * keptObjects) return;
    const newest = this.objects.slice(-keptObjects);
    const oldest = newest[0]?.start ?? 0;
    const enclosing = this.objects
      .slice(0, -keptObjects)
      .filter((earlier) => earlier.end > oldest)
      .sort((a, b) => b.end - a.end)
      .slice(0, keptEnclosing)
      .sort((a, b) => a.start - b.start);
    this.objects = [...enclosing, ...newest];
  }

  list(): ScannedObject[] {
    return this.objects;
  }
}
