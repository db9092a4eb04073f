/**
 * The agent's streamed text cut into whole lines for live progress: a line is shown once, when its
 * newline arrives or the send ends, never while it is still streaming (a half line, then the whole
 * one, read as the same text twice). The result contract the reply ends with (a JSON envelope, bare
 * or fenced, or a Markdown report) is not text to show: its summary is shown from the parsed envelope.
 */

import { envelopeCandidates } from "../../envelope/extract-json.js";
import { findReportBlock, sectionKey } from "../../envelope/markdown-blocks.js";
import { fieldLine } from "../../envelope/markdown-fields.js";
import { markdownLines } from "../../envelope/markdown-text.js";

/** A line longer than this is kept only up to here: a line is for a glance, the reply is in the envelope. */
const MAX_LINE_CHARS = 64 * 1024;
/** Lines a block that may be the envelope is held back, at most; beyond, its lines are never shown. */
const MAX_HELD_LINES = 2000;
/** Non-blank lines under a Markdown heading that hold no report field before the heading reads as prose. */
const PROSE_AFTER_HEADING = 3;

type HeldKind = "fence" | "json" | "markdown";

interface Held {
  kind: HeldKind;
  lines: string[];
  /** The fence or the object has closed: a later non-blank line means it was not the reply's end. */
  closed: boolean;
  /** JSON: braces open, and whether the scan ended inside a string. */
  depth: number;
  inString: boolean;
}

/** What {@link replyLines} is fed: the streamed pieces, then the end of the send. */
export interface ReplyLines {
  push(text: string): void;
  end(): void;
}

const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;

/** Brace depth change of `line` outside JSON strings, carrying the string state across lines. */
function scanBraces(held: Held, line: string): void {
  let escaped = false;
  for (const char of line) {
    if (held.inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') held.inString = false;
    } else if (char === '"') held.inString = true;
    else if (char === "{" || char === "[") held.depth++;
    else if (char === "}" || char === "]") held.depth--;
  }
  if (held.depth <= 0 && !held.inString) held.closed = true;
}

/** Whether `trimmed` may start a Markdown report: a top heading, a report section, a report field. */
function startsReport(trimmed: string): boolean {
  const heading = HEADING.exec(trimmed);
  if (heading !== null) {
    const level = heading[1]?.length ?? 0;
    return level <= 2 || (level === 3 && sectionKey(heading[2] ?? "") !== null);
  }
  const field = fieldLine(trimmed);
  return field !== null && field.key !== null && (field.bold || field.key === "status");
}

/** Where an object starts in `line` (`{` followed by a quoted key, `}` or the line's end), or -1. */
function objectStart(line: string): number {
  for (let at = line.indexOf("{"); at >= 0; at = line.indexOf("{", at + 1)) {
    const next = line.slice(at + 1).trimStart();
    if (next === "" || next.startsWith('"') || next.startsWith("}")) return at;
  }
  return -1;
}

/** Whether the held block is the result contract the reply ends with. */
function isEnvelope(held: Held): boolean {
  const text = held.lines.join("\n");
  if (held.kind === "markdown") return findReportBlock(markdownLines(text)) !== null;
  return envelopeCandidates(text).length > 0;
}

/**
 * Cuts streamed text into whole lines for `show` (trimmed, never blank). A block that may be the
 * reply's envelope (a fence, an object, a Markdown report) is held back: shown once text follows it,
 * dropped when the send ends on it and it holds an envelope.
 */
export function replyLines(show: (line: string) => void): ReplyLines {
  let partial = "";
  let held: Held | null = null;

  const emit = (line: string) => {
    const trimmed = line.trim();
    if (trimmed !== "") show(trimmed);
  };
  const release = () => {
    for (const line of held?.lines ?? []) emit(line);
    held = null;
  };
  const hold = (kind: HeldKind, line: string) => {
    held = { kind, lines: [line], closed: false, depth: 0, inString: false };
    if (kind === "json") scanBraces(held, line);
  };
  const start = (line: string) => {
    const trimmed = line.trim();
    if (trimmed === "") return;
    if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) return hold("fence", trimmed);
    if (startsReport(trimmed)) return hold("markdown", trimmed);
    const at = objectStart(trimmed);
    if (at < 0) return emit(trimmed);
    // Prose before the object ("Done: {…") is text; the object may be the envelope.
    emit(trimmed.slice(0, at));
    hold("json", trimmed.slice(at));
  };
  const keep = (current: Held, line: string) => {
    if (current.lines.length < MAX_HELD_LINES) current.lines.push(line);
  };
  const line = (raw: string) => {
    const current: Held | null = held;
    if (current === null) return start(raw);
    const trimmed = raw.trim();
    if (current.closed) {
      if (trimmed === "") return;
      // Text after the block: the block was not the reply's end.
      release();
      return start(raw);
    }
    if (current.kind === "fence") {
      keep(current, raw);
      if (/^(```|~~~)\s*$/.test(trimmed)) current.closed = true;
      return;
    }
    if (current.kind === "json") {
      keep(current, raw);
      scanBraces(current, raw);
      return;
    }
    // Markdown: a new top heading, or prose that holds no report field, ends the hold.
    const heading = HEADING.exec(trimmed);
    const holdsReport = findReportBlock(markdownLines(current.lines.join("\n"))) !== null;
    if (!holdsReport && ((heading !== null && (heading[1]?.length ?? 0) <= 2) || tooLong(current))) {
      release();
      return start(raw);
    }
    keep(current, raw);
  };
  const tooLong = (current: Held) =>
    current.lines.filter((l) => l.trim() !== "").length > PROSE_AFTER_HEADING;

  return {
    push(text) {
      partial += text;
      const pieces = partial.split(/\r?\n|\r/);
      partial = pieces.pop() ?? "";
      // A line without end: keep its start, which is all a glance shows.
      if (partial.length > MAX_LINE_CHARS) partial = partial.slice(0, MAX_LINE_CHARS);
      for (const piece of pieces) line(piece);
    },
    end() {
      if (partial.trim() !== "") line(partial);
      partial = "";
      const current: Held | null = held;
      if (current !== null && isEnvelope(current)) held = null;
      else release();
    },
  };
}
