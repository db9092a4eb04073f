import { fieldLine } from "./markdown-fields.js";

/** One line of an agent's Markdown reply, after normalization. */
export interface MarkdownLine {
  /** The line without trailing whitespace; leading tabs expanded to 4 spaces. */
  text: string;
  /** Inside a fenced code block that is not a report wrapper: never a heading, never a field. */
  code: boolean;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/**
 * Decodes the HTML entities agents sometimes emit instead of characters (`&lt;topic&gt;`): the five
 * XML names, `&nbsp;`, and decimal or hex character references. One pass, so `&amp;lt;` becomes `&lt;`.
 * Unknown names and invalid code points are left as written. Never throws.
 */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (whole, body: string) => {
    if (body.startsWith("#")) {
      const hex = body[1] === "x" || body[1] === "X";
      const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const WRAPPER_INFO = new Set(["", "markdown", "md", "text", "txt"]);
const H2_LINE = /^ {0,3}##(?!#)/;
const FIELD_LINE = /^ {0,3}(?:###(?!#)|(?:[-*+]\s+)?(?:(?:\*\*|__)\s*)?status\b)/i;

/**
 * Splits a reply into normalized lines: CRLF and CR become LF, HTML entities are decoded, trailing
 * whitespace is dropped, leading tabs expand to 4 spaces. Fenced code blocks are resolved here: a
 * fence (```` ``` ````, `~~~`, any length ≥ 3) whose info string is empty, `markdown`, `md` or `text`
 * and which holds a `##` heading plus a `###` heading or a Status line, or three bold contract fields
 * (`**Status**:`, `**Summary**:`, `**Next**:`…), wraps a report, so its fence
 * lines become blank and its content is read as Markdown; every other fence's lines are `code`. An
 * unclosed fence runs to the end of the reply. Never throws.
 */
export function markdownLines(text: string): MarkdownLine[] {
  const raw = decodeHtmlEntities(text.replace(/\r\n?/g, "\n"))
    .split("\n")
    .map((line) => expandLeadingTabs(line).trimEnd());
  const lines: MarkdownLine[] = raw.map((line) => ({ text: line, code: false }));
  let i = 0;
  while (i < raw.length) {
    const open = FENCE_OPEN.exec(raw[i] ?? "");
    if (open === null) {
      i++;
      continue;
    }
    const marker = open[1] ?? "```";
    const close = closingFence(raw, i + 1, marker);
    const content = raw.slice(i + 1, close);
    const info = (open[2] ?? "").toLowerCase();
    if (WRAPPER_INFO.has(info) && wrapsReport(content)) {
      // A report wrapper: drop its fence lines and read what is inside (inner fences included).
      blank(lines, i);
      if (close < raw.length) blank(lines, close);
      i++;
      continue;
    }
    for (let j = i; j <= Math.min(close, raw.length - 1); j++) {
      const line = lines[j];
      if (line) line.code = true;
    }
    i = close + 1;
  }
  return lines;
}

/**
 * A prose section as one string: lines of a paragraph joined by a space (a line starting with a bullet,
 * and code, keep their own line), paragraphs by a blank line, runs of spaces collapsed. Never throws.
 */
export function sectionText(lines: readonly MarkdownLine[]): string {
  const paragraphs: string[] = [];
  let current = "";
  for (const line of lines) {
    if (line.code) {
      current = current === "" ? line.text : `${current}\n${line.text}`;
      continue;
    }
    const text = line.text.trim().replace(/\s+/g, " ");
    if (text === "") {
      if (current !== "") paragraphs.push(current);
      current = "";
    } else if (current === "") {
      current = text;
    } else {
      current += /^(?:[-*+]|\d{1,9}[.)]) /.test(text) ? `\n${text}` : ` ${text}`;
    }
  }
  if (current !== "") paragraphs.push(current);
  return paragraphs.join("\n\n");
}

/**
 * A fence's content is a report: a `##` heading plus a `###` heading or a Status line, or (the compact
 * form) at least three bold contract fields such as `**Status**:`, `**Summary**:`, `**Next**:`.
 */
function wrapsReport(content: readonly string[]): boolean {
  if (content.some((l) => H2_LINE.test(l)) && content.some((l) => FIELD_LINE.test(l))) return true;
  const fields = content.filter((l) => {
    const key = fieldLine(l)?.key;
    return key != null && key !== "change" && key !== "project";
  });
  return fields.length >= 3;
}

/** Index of the line closing a fence opened with `marker`, or `lines.length` when it never closes. */
function closingFence(lines: readonly string[], from: number, marker: string): number {
  const char = marker[0] === "~" ? "~" : "`";
  const pattern = new RegExp(`^ {0,3}\\${char}{${marker.length},}\\s*$`);
  for (let j = from; j < lines.length; j++) if (pattern.test(lines[j] ?? "")) return j;
  return lines.length;
}

function blank(lines: MarkdownLine[], index: number): void {
  const line = lines[index];
  if (line) line.text = "";
}

function expandLeadingTabs(line: string): string {
  const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
  if (!indent.includes("\t")) return line;
  return indent.replace(/\t/g, "    ") + line.slice(indent.length);
}

/**
 * Inline Markdown as a reader sees it: HTML comments and struck-through spans (`~~x~~`, `~x~`,
 * `<del>`, `<s>`, `<strike>`) are removed, links and images become their text, and HTML tags,
 * emphasis and code marks are dropped. A strike marker without its partner stays, so the caller
 * can tell the text is not plain. Never throws.
 *
 * @example plainText("~~success~~ **failure**") // " failure"
 */
export function plainText(value: string): string {
  return value
    .replace(/<!--[\s\S]*?(?:-->|$)/g, "")
    .replace(/<(del|s|strike)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/~~[^~]*~~/g, "")
    .replace(/~[^~\s][^~]*~/g, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<\/?[a-z][^>]*>/gi, "")
    .replace(/[`*]+/g, "")
    .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, "$1");
}
