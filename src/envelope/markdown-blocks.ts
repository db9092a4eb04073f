import { type DatumKey, datumKey, type FieldLine, fieldLine } from "./markdown-fields.js";
import type { MarkdownLine } from "./markdown-text.js";

/** The report parts a `###` heading can name. */
export type SectionKey = Exclude<DatumKey, "project">;

/** One `###` section of a report, with the lines under it. */
export interface ReportSection {
  /** The heading as written, without `###`. */
  title: string;
  /** What the title names, or null for a section the contract does not know (it is ignored). */
  key: SectionKey | null;
  lines: MarkdownLine[];
}

/** One `**Name**: value` line of the report (or a plain `Status:` line in its preamble), with its value. */
export interface ReportField extends FieldLine {
  /** The lines after the field line that continue its value (a list, a paragraph). */
  lines: MarkdownLine[];
}

/** The report found in a reply. */
export interface ReportBlock {
  /** The phase heading's text; null when the report fields stand under no heading at all. */
  heading: string | null;
  /** 2 for `## …` (the contract), 1 for `# …`, 0 when there is no heading. */
  level: number;
  /** Lines between the heading and the first `###` section, fields taken out. */
  preamble: MarkdownLine[];
  /** The `###` sections in order, fields taken out. */
  sections: ReportSection[];
  /** The fields in order, wherever they stand: the preamble, a section, or after the sections. */
  fields: ReportField[];
}

/**
 * Finds the report in normalized lines. The reply is cut at every `#`/`##` heading outside code; the
 * LAST piece holding report fields (a contract field line — `**Status**:`, `**Summary**:`, `**Next**:` …,
 * or a plain `Status:` before its first `###` — or a `###` section the contract names) is the report,
 * so prose, quoted earlier reports and later unrelated headings do not count. The text before the
 * first heading counts too, as a report without a heading. Null when no piece holds report fields.
 * Never throws.
 */
export function findReportBlock(lines: readonly MarkdownLine[]): ReportBlock | null {
  return findReportBlocks(lines).at(-1) ?? null;
}

/**
 * Every piece of the reply that holds report fields (see {@link findReportBlock}), in order: the last
 * is the report, the others are earlier reports or quoted ones. Never throws.
 */
export function findReportBlocks(lines: readonly MarkdownLine[]): ReportBlock[] {
  const pieces: { heading: string | null; level: number; body: MarkdownLine[] }[] = [
    { heading: null, level: 0, body: [] },
  ];
  for (const line of lines) {
    const top = line.code ? null : atxHeading(line.text);
    if (top && top.level <= 2) pieces.push({ heading: cleanTitle(top.text), level: top.level, body: [] });
    else pieces[pieces.length - 1]?.body.push(line);
  }
  const blocks: ReportBlock[] = [];
  for (const piece of pieces) {
    const block = splitSections(piece.heading, piece.level, piece.body);
    if (holdsReportFields(block)) blocks.push(block);
  }
  return blocks;
}

/**
 * What a `###` title names, with `datumKey`'s forgiveness and synonyms (`### Next Step`, `### Next`,
 * `### Executive Summary`…); a `### Project` section names nothing.
 */
export function sectionKey(title: string): SectionKey | null {
  const key = datumKey(cleanTitle(title));
  return key === "project" ? null : key;
}

/**
 * Splits a piece into its preamble, `###` sections and fields. A contract field line starts a field
 * (a plain `Status:`/`Change:`/`Project:` only in the preamble); its value continues on the lines
 * after it up to the next heading or field line, a field line the contract does not know that is
 * shaped like it (`**Skill Resolution**:` after `**Risks**: None`), or prose after a blank line once
 * the value has begun. A field inside a `###` section ends that section: what follows the fields
 * belongs to no section.
 */
function splitSections(heading: string | null, level: number, body: MarkdownLine[]): ReportBlock {
  const block: ReportBlock = { heading, level, preamble: [], sections: [], fields: [] };
  let target = block.preamble;
  let field: ReportField | null = null;
  let blanks: MarkdownLine[] = [];
  for (const line of body) {
    const match = line.code ? null : atxHeading(line.text);
    if (match?.level === 3) {
      field = null;
      const title = cleanTitle(match.text);
      const section: ReportSection = { title, key: sectionKey(title), lines: [] };
      block.sections.push(section);
      target = section.lines;
      continue;
    }
    const found = line.code ? null : fieldLine(line.text, { plain: block.sections.length === 0 });
    if (found?.key) {
      field = { ...found, lines: [] };
      block.fields.push(field);
      blanks = [];
      const last = block.sections[block.sections.length - 1];
      if (last !== undefined && last.title !== "") {
        const after: ReportSection = { title: "", key: null, lines: [] };
        block.sections.push(after);
        target = after.lines;
      }
      continue;
    }
    if (field !== null && continuesField(field, line, found, blanks.length > 0)) {
      if (line.text.trim() === "") blanks.push(line);
      else {
        field.lines.push(...blanks, line);
        blanks = [];
      }
      continue;
    }
    field = null;
    target.push(...blanks, line);
    blanks = [];
  }
  return block;
}

/** Whether `line` continues the value of `field` (see `splitSections`). */
function continuesField(
  field: ReportField,
  line: MarkdownLine,
  found: FieldLine | null,
  afterBlank: boolean,
): boolean {
  if (!line.code && /^ {0,3}#{1,6}(?:[ \t]|$)/.test(line.text)) return false;
  if (found !== null && found.indent <= field.indent && found.bullet === field.bullet) return false;
  const text = line.text;
  if (text.trim() === "" || !afterBlank) return true;
  const begun = field.rest !== "" || field.lines.some((l) => l.text.trim() !== "");
  const indent = /^ */.exec(text)?.[0].length ?? 0;
  return !begun || indent > field.indent || /^ *(?:[-*+]|\d{1,9}[.)])[ \t]/.test(text);
}

/**
 * An ATX heading (`## Title ##`): up to 3 spaces, 1-6 #, then whitespace or the end. Scanned by hand,
 * not by regex, so a hostile line of spaces cannot make it quadratic. `#obs_1` is no heading.
 */
function atxHeading(line: string): { level: number; text: string } | null {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  let level = 0;
  while (line[i + level] === "#") level++;
  const after = line[i + level];
  if (level === 0 || level > 6 || (after !== undefined && after !== " " && after !== "\t")) return null;
  let text = line.slice(i + level).trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  if (end === 0) text = "";
  else if (end < text.length && (text[end - 1] === " " || text[end - 1] === "\t"))
    text = text.slice(0, end).trimEnd();
  return { level, text };
}

function holdsReportFields(block: ReportBlock): boolean {
  if (block.sections.some((section) => section.key !== null && section.key !== "change")) return true;
  return block.fields.some((field) => field.key !== "change" && field.key !== "project");
}

/** A heading's text without emphasis markers around it or a trailing colon. */
function cleanTitle(text: string): string {
  return text
    .trim()
    .replace(/^[*_]+|[*_]+$/g, "")
    .replace(/:$/, "")
    .trim();
}
