/**
 * Splits a stream of decoded text chunks into lines in linear time: a chunk without a newline is only
 * queued, so a 5 MB single line costs one join, and many small lines never rescan old text.
 *
 * A line is capped: one longer than `headBytes + tailBytes` (UTF-8) keeps at most its first `headBytes`
 * and its last `tailBytes`, with `capMarker(dropped)` between them. While such a line streams only the head and
 * a rolling tail are held, so an agent printing one 1 GB JSON event costs tens of MB, not a crash on
 * V8's largest string (~512 MB). Cuts fall on code point boundaries (never half a surrogate pair), and
 * the word each cut went through is dropped with the rest (`CUT_WORD_UNITS`).
 */

/** Bytes kept from the start of a capped line: twice `limits.max_result_bytes`' default (16 MiB), so a
 * final reply of that size still fits in its JSON event with every character escaped once. */
export const LINE_HEAD_BYTES = 32 * 1024 * 1024;
/** Bytes kept from the end of a capped line (where a reply's envelope is). */
export const LINE_TAIL_BYTES = 1024 * 1024;

/**
 * UTF-16 units a cut may take off the end of the head and the start of the tail: the word the cut went
 * through (the text up to the nearest whitespace, at most this long), which may be part of a secret
 * that `redactSecrets` would no longer recognise in halves.
 */
export const CUT_WORD_UNITS = 4096;

/** What was cut from one stdout line. */
export interface CappedLine {
  /** UTF-8 bytes of the whole line (its newline and a CRLF's `\r` not counted). */
  lineBytes: number;
  /** UTF-8 bytes kept from its start. */
  headBytes: number;
  /** UTF-8 bytes kept from its end. */
  tailBytes: number;
  /** `lineBytes - headBytes - tailBytes`. */
  droppedBytes: number;
}

export interface LineSplitterOptions {
  /** Bytes kept from the start of an over-long line (default `LINE_HEAD_BYTES`). */
  headBytes?: number;
  /** Bytes kept from its end (default `LINE_TAIL_BYTES`). */
  tailBytes?: number;
  /** Longest word taken off each side of a cut (default `CUT_WORD_UNITS`). */
  cutWordUnits?: number;
  /** Called once per capped line, before the batch of lines holding it goes to `onLines`. */
  onCapped?(cap: CappedLine): void;
}

/** Incremental line splitting over decoded chunks. */
export interface LineSplitter {
  /** Feeds one chunk; calls `onLines` with the complete non-blank lines it closes. */
  push(chunk: string): void;
  /** Flushes the last line when the stream ended without a newline. */
  end(): void;
}

/**
 * The text put between the head and the tail of a capped line. It holds no quote, backslash or control
 * character, so a cut inside a JSON string keeps the string (and maybe the event) parseable.
 */
export function capMarker(droppedBytes: number): string {
  return `...<sssf: ${droppedBytes} bytes of this line dropped>...`;
}

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** UTF-8 bytes of a UTF-16 unit outside a surrogate pair (a lone surrogate encodes as U+FFFD: 3 bytes). */
function unitBytes(unit: number): number {
  return unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
}

/** The length of the longest prefix of `text` with at most `maxBytes` UTF-8 bytes that ends on a code point. */
export function headIndex(text: string, maxBytes: number): number {
  if (maxBytes <= 0) return 0;
  const guess = Math.min(text.length, maxBytes);
  const prefix = guess === text.length ? text : text.slice(0, guess);
  // Every UTF-16 unit is at least one byte: equal counts mean an ASCII prefix, which cannot be longer.
  const bytes = Buffer.byteLength(prefix);
  if (bytes === guess || (guess === text.length && bytes <= maxBytes)) return guess;
  let used = 0;
  let index = 0;
  while (index < text.length) {
    const unit = text.charCodeAt(index);
    const pair = isHigh(unit) && isLow(text.charCodeAt(index + 1));
    const size = pair ? 4 : unitBytes(unit);
    if (used + size > maxBytes) break;
    used += size;
    index += pair ? 2 : 1;
  }
  return index;
}

/**
 * Where the longest suffix of `text` with at most `maxBytes` UTF-8 bytes starts, on a code point
 * boundary; a low surrogate whose high half is not in `text` is left out too.
 */
export function tailIndex(text: string, maxBytes: number): number {
  if (maxBytes <= 0) return text.length;
  const guess = Math.max(0, text.length - maxBytes);
  const suffix = guess === 0 ? text : text.slice(guess);
  const bytes = Buffer.byteLength(suffix);
  let index: number;
  // As in `headIndex`: an ASCII suffix of `maxBytes` units is the longest there is.
  if (bytes === suffix.length || (guess === 0 && bytes <= maxBytes)) {
    index = guess;
  } else {
    let used = 0;
    index = text.length;
    while (index > 0) {
      const unit = text.charCodeAt(index - 1);
      const pair = isLow(unit) && index >= 2 && isHigh(text.charCodeAt(index - 2));
      const size = pair ? 4 : unitBytes(unit);
      if (used + size > maxBytes) break;
      used += size;
      index -= pair ? 2 : 1;
    }
  }
  if (index < text.length && isLow(text.charCodeAt(index)) && !isHigh(text.charCodeAt(index - 1))) index++;
  return index;
}

const isSpace = (unit: number): boolean => unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);

/** Where `text` ends once a word running into its end (at most `maxUnits` long) is taken off. */
function trimmedEnd(text: string, maxUnits: number): number {
  let end = text.length;
  const stop = Math.max(0, end - maxUnits);
  while (end > stop && !isSpace(text.charCodeAt(end - 1))) end--;
  // Never keep the high half of a pair whose low half was taken.
  if (end > 0 && end < text.length && isHigh(text.charCodeAt(end - 1))) end--;
  return end;
}

/** Where `text` starts once a word running from its start (at most `maxUnits` long) is taken off. */
function trimmedStart(text: string, maxUnits: number): number {
  let start = 0;
  const stop = Math.min(text.length, maxUnits);
  while (start < stop && !isSpace(text.charCodeAt(start))) start++;
  if (start > 0 && start < text.length && isLow(text.charCodeAt(start))) start++;
  return start;
}

/** One line being received: whole while it fits the cap, then a head and a rolling tail. */
class LineBuffer {
  private pieces: string[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  private capped = false;
  private head = "";
  private headBytes = 0;
  private dropped = 0;

  constructor(
    private readonly headLimit: number,
    private readonly tailLimit: number,
    private readonly cutWordUnits: number,
  ) {}

  get empty(): boolean {
    return this.pieces.length === 0 && !this.capped;
  }

  append(piece: string): void {
    if (piece === "") return;
    const size = Buffer.byteLength(piece);
    if (this.capped) {
      this.pushTail(piece, size);
      return;
    }
    if (this.bytes + size <= this.headLimit + this.tailLimit) {
      this.pieces.push(piece);
      this.sizes.push(size);
      this.bytes += size;
      return;
    }
    this.startCapping(piece, size);
  }

  /** The line (capped with its marker) and what was cut, then empties the buffer. */
  take(): { text: string; cap: CappedLine | null } {
    if (!this.capped) {
      const text = this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join("");
      this.reset();
      return { text, cap: null };
    }
    const rolled = this.pieces.join("");
    const lineBytes = this.headBytes + this.dropped + this.bytes;
    const whole = rolled.slice(tailIndex(rolled, this.tailLimit));
    // The words the cuts went through may be parts of a secret, which redaction would no longer know.
    const head = this.head.slice(0, trimmedEnd(this.head, this.cutWordUnits));
    const tail = whole.slice(trimmedStart(whole, this.cutWordUnits));
    const headBytes = head.length === this.head.length ? this.headBytes : Buffer.byteLength(head);
    const tailBytes = Buffer.byteLength(tail);
    const droppedBytes = lineBytes - headBytes - tailBytes;
    const cap = { lineBytes, headBytes, tailBytes, droppedBytes };
    const text = `${head}${capMarker(droppedBytes)}${tail}`;
    this.reset();
    return { text, cap };
  }

  private reset(): void {
    this.pieces = [];
    this.sizes = [];
    this.bytes = 0;
    this.capped = false;
    this.head = "";
    this.headBytes = 0;
    this.dropped = 0;
  }

  /** The line just outgrew the cap: its first `headLimit` bytes become the head, the rest the tail. */
  private startCapping(piece: string, size: number): void {
    const pieces = [...this.pieces, piece];
    const sizes = [...this.sizes, size];
    this.pieces = [];
    this.sizes = [];
    this.bytes = 0;
    this.capped = true;
    const head: string[] = [];
    let room = this.headLimit;
    let index = 0;
    // Whole pieces while they fit, then the one that does not is cut; everything after it is tail.
    for (; index < pieces.length; index++) {
      const bytes = sizes[index] as number;
      if (bytes > room) break;
      head.push(pieces[index] as string);
      room -= bytes;
    }
    const split = pieces[index];
    if (split !== undefined) {
      const cut = headIndex(split, room);
      const kept = split.slice(0, cut);
      const keptBytes = Buffer.byteLength(kept);
      head.push(kept);
      room -= keptBytes;
      this.pushTail(split.slice(cut), (sizes[index] as number) - keptBytes);
    }
    for (index++; index < pieces.length; index++)
      this.pushTail(pieces[index] as string, sizes[index] as number);
    this.head = head.join("");
    this.headBytes = this.headLimit - room;
  }

  /** Adds to the rolling tail, dropping pieces from its front once the rest still fills the tail. */
  private pushTail(piece: string, size: number): void {
    let text = piece;
    let bytes = size;
    if (bytes > this.tailLimit) {
      // This piece alone fills the tail: everything before it is dropped.
      this.dropped += this.bytes;
      this.pieces = [];
      this.sizes = [];
      this.bytes = 0;
      text = piece.slice(tailIndex(piece, this.tailLimit));
      const kept = Buffer.byteLength(text);
      this.dropped += bytes - kept;
      bytes = kept;
    }
    if (text === "") return;
    this.pieces.push(text);
    this.sizes.push(bytes);
    this.bytes += bytes;
    while (this.pieces.length > 1 && this.bytes - (this.sizes[0] as number) >= this.tailLimit) {
      const first = this.sizes.shift() as number;
      this.pieces.shift();
      this.bytes -= first;
      this.dropped += first;
    }
  }
}

/** Drops the `\r` of a CRLF ending; blank lines carry nothing and are dropped (null). */
function keepLine(line: string): string | null {
  const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
  // A line that starts with a visible character (JSON's `{`) is not blank: no trimmed copy to test.
  if (trimmed.charCodeAt(0) > 0x20 && trimmed.charCodeAt(0) < 0x7f) return trimmed;
  return trimmed.trim() === "" ? null : trimmed;
}

/**
 * Creates a splitter that reports lines in batches (one batch per chunk). Chunks are expected to hold
 * whole code points, as a `StringDecoder` (`setEncoding("utf8")`) delivers them. Never throws itself.
 */
export function createLineSplitter(
  onLines: (lines: string[]) => void,
  options: LineSplitterOptions = {},
): LineSplitter {
  const headLimit = Math.max(0, Math.floor(options.headBytes ?? LINE_HEAD_BYTES));
  const tailLimit = Math.max(0, Math.floor(options.tailBytes ?? LINE_TAIL_BYTES));
  const limit = headLimit + tailLimit;
  const cutWordUnits = Math.max(0, Math.floor(options.cutWordUnits ?? CUT_WORD_UNITS));
  const pending = new LineBuffer(headLimit, tailLimit, cutWordUnits);

  const capped = (cap: CappedLine | null) => {
    if (cap !== null) options.onCapped?.(cap);
  };
  const keep = (lines: string[], line: string) => {
    const kept = keepLine(line);
    if (kept !== null) lines.push(kept);
  };
  /** A whole line that arrived inside one chunk: capped the same way when it is too long. */
  const complete = (lines: string[], line: string) => {
    // At most 3 bytes per UTF-16 unit: only long lines need counting.
    if (line.length * 3 <= limit || Buffer.byteLength(line) <= limit) {
      keep(lines, line);
      return;
    }
    const buffer = new LineBuffer(headLimit, tailLimit, cutWordUnits);
    buffer.append(line);
    const { text, cap } = buffer.take();
    capped(cap);
    keep(lines, text);
  };

  return {
    push(chunk) {
      const firstNewline = chunk.indexOf("\n");
      if (firstNewline === -1) {
        pending.append(chunk);
        return;
      }
      const lines: string[] = [];
      pending.append(chunk.slice(0, firstNewline));
      const { text, cap } = pending.take();
      capped(cap);
      keep(lines, text);
      const lastNewline = chunk.lastIndexOf("\n");
      if (lastNewline > firstNewline) {
        for (const line of chunk.slice(firstNewline + 1, lastNewline).split("\n")) complete(lines, line);
      }
      pending.append(chunk.slice(lastNewline + 1));
      if (lines.length > 0) onLines(lines);
    },
    end() {
      if (pending.empty) return;
      const { text, cap } = pending.take();
      capped(cap);
      const lines: string[] = [];
      keep(lines, text);
      if (lines.length > 0) onLines(lines);
    },
  };
}
