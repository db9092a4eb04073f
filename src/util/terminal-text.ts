/**
 * Text from agents and repositories made safe to print on a terminal: every character a terminal would
 * act on instead of showing (escape sequences, bells, overwrites, bidi reordering) becomes a visible
 * escape, and cutting text never splits a character. See docs/trace.md, "What sssf prints is safe to show".
 */

/** The bidi controls (Unicode's Bidi_Control property): they reorder what follows them on screen. */
const BIDI = new Set([
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);

/** Quick test for text that needs no work: no C0 control but tab/newline, DEL, C1, bidi or lone surrogate. */
const UNSAFE =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;

/** What in JSON text a terminal would still act on: JSON escapes only C0 controls, not DEL, C1 or bidi. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, "0");

/** Options of {@link terminalSafe}. */
export interface TerminalSafeOptions {
  /** Keep newlines (the renderer prints several lines); a `\r\n` pair becomes `\n`. Default false: `\n` → `␊`. */
  multiline?: boolean;
}

function escapeFor(code: number, multiline: boolean): string | null {
  if (code === 0x09 || (code === 0x0a && multiline)) return null;
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  if ((code >= 0x80 && code <= 0x9f) || BIDI.has(code) || (code >= 0xd800 && code <= 0xdfff))
    return `<U+${hex(code)}>`;
  return null;
}

/**
 * Replaces every character a terminal would act on rather than show with a visible escape:
 * - C0 controls U+0000–U+001F except tab (and newline with `multiline`) become their Control Pictures
 *   U+2400–U+241F: ESC → `␛`, BEL → `␇`, BS → `␈`, CR → `␍`, NUL → `␀`, a newline on one line → `␊`;
 * - DEL U+007F becomes `␡` (U+2421);
 * - C1 controls U+0080–U+009F (the 8-bit CSI U+009B among them), the bidi controls (U+061C, U+200E,
 *   U+200F, U+202A–U+202E, U+2066–U+2069) and lone surrogates become `<U+XXXX>` (four upper-case hex
 *   digits: `<U+202E>`, `<U+009B>`).
 * With `multiline`, `\r\n` is a line ending and becomes `\n`; a lone `\r` still becomes `␍`.
 *
 * Contract: the result contains no C0 control but tab and (with `multiline`) newline, no DEL, no C1,
 * no bidi control and no lone surrogate; every other character (emoji and surrogate pairs included) is
 * kept as is, in order; text that needs no escape is returned itself. Never throws. Apply it to the
 * text before adding colour codes of one's own.
 * @example
 * terminalSafe("\x1b[2Jhi\u202e"); // "␛[2Jhi<U+202E>"
 */
export function terminalSafe(text: string, options: TerminalSafeOptions = {}): string {
  if (!UNSAFE.test(text)) return text;
  const multiline = options.multiline === true;
  let out = "";
  let previous = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    const isCrlf = multiline && code === 0x0d && text.charCodeAt(i + 1) === 0x0a;
    const visible = isCrlf ? "" : escapeFor(code, multiline);
    if (visible !== null) {
      out += text.slice(previous, i) + visible;
      previous = i + width;
    }
    i += width;
  }
  return out + text.slice(previous);
}

/**
 * JSON text (as `JSON.stringify` or SQLite writes it) with DEL, C1 and bidi controls written as
 * `\uXXXX` escapes: JSON already escapes C0 controls, not these. Outside strings JSON text is ASCII, so
 * the result is the same JSON value, safe on a terminal. Never throws.
 * @example
 * jsonTerminalSafe(JSON.stringify("a\u202eb")); // '"a\\u202Eb"'
 */
export function jsonTerminalSafe(json: string): string {
  return json.replace(JSON_UNSAFE, (character) => `\\u${hex(character.charCodeAt(0))}`);
}

// Made on first use: creating a segmenter loads ICU's break rules, about 10 ms at start-up.
let segmenter: Intl.Segmenter | undefined;

/** One grapheme cluster of a text and where it starts (as `Intl.Segmenter` yields them). */
export interface Grapheme {
  index: number;
  segment: string;
}

/** UTF-16 units segmented at a time; a window that holds a single cluster is widened. */
const WINDOW_UNITS = 256;

/**
 * `text`'s grapheme clusters (user-perceived characters), from one shared segmenter, in windows of a
 * few hundred units. V8's segment iterator costs time in proportion to the whole string at every step
 * (about 1 ms a step on 1 MB), so stepping through a tool's multi-megabyte result took seconds.
 * Segmenting a window is exact: grapheme rules decide a boundary from the text before it and one
 * character after, so every cluster of a window but its last is the text's own, and the next window
 * starts where that last one does.
 */
export function* graphemes(text: string): Generator<Grapheme, void, undefined> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let start = 0;
  let width = WINDOW_UNITS;
  while (start < text.length) {
    const end = Math.min(text.length, start + width);
    const window = start === 0 && end === text.length ? text : text.slice(start, end);
    let last: Intl.SegmentData | undefined;
    for (const data of segmenter.segment(window)) {
      if (last !== undefined) yield { index: start + last.index, segment: last.segment };
      last = data;
    }
    if (last === undefined) return;
    if (end === text.length) {
      yield { index: start + last.index, segment: last.segment };
      return;
    }
    if (last.index === 0) {
      // One cluster fills the window (a long run of combining marks): look further before deciding.
      width *= 4;
      continue;
    }
    start += last.index;
    width = WINDOW_UNITS;
  }
}

/** A unit that may join another into one grapheme: U+0300 on (combining marks start there), or a CR. */
const MAY_JOIN = /[^\u0000-\u000c\u000e-\u02ff]/;

/** How many user-perceived characters (grapheme clusters) `text` holds: an emoji with modifiers is one. */
export function graphemeCount(text: string): number {
  // Without such a unit every code unit is a grapheme.
  if (!MAY_JOIN.test(text)) return text.length;
  let count = 0;
  for (const _ of graphemes(text)) count++;
  return count;
}

/** `graphemeCount(text)` when it is at most `limit`, else `limit + 1`: reads no further than needed. */
export function graphemeCountUpTo(text: string, limit: number): number {
  // Text at most `limit` units long holds at most `limit` graphemes: count them all.
  if (text.length <= limit) return graphemeCount(text);
  if (!MAY_JOIN.test(text)) return limit + 1;
  let count = 0;
  for (const _ of graphemes(text)) if (++count > limit) break;
  return count;
}

/**
 * `text` cut to at most `max` grapheme clusters, the last of them `ellipsis` when anything was cut;
 * never splits a character (a surrogate pair, an emoji with its modifiers, a letter and its accents).
 * Returns `text` itself when it fits. Never throws; `max` below 1 yields "".
 * @example
 * truncateGraphemes("👍🏽👍🏽👍🏽", 2); // "👍🏽…"
 */
export function truncateGraphemes(text: string, max: number, ellipsis = "…"): string {
  // Every grapheme is at least one code unit: text of at most `max` units fits.
  if (text.length <= max) return text;
  if (max < 1) return "";
  let count = 0;
  let end = 0;
  for (const { index } of graphemes(text)) {
    // The first max - 1 graphemes end where grapheme number max - 1 (from 0) starts.
    if (count === max - 1) end = index;
    count++;
    if (count > max) return `${text.slice(0, end)}${ellipsis}`;
  }
  return text;
}
