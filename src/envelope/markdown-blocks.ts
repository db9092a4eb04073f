import type { MarkdownLine } from "./markdown-text.js";

/** The report parts a `###` heading can name. */
export type SectionKey = "status" | "change" | "summary" | "artifacts" | "next_recommended" | "risks";

/** One `###` section of a report, with the lines under it. */
export interface ReportSection {
  /** The heading as written, without `###`. */
  title: string;
  /** What the title names, or null for a section the contract does not know (it is ignored). */
  key: SectionKey | null;
  lines: MarkdownLine[];
}

/** The report found in a reply. */
export interface ReportBlock {
  /** The phase heading's text; null when the report fields stand under no heading at all. */
  heading: string | null;
  /** 2 for `## …` (the contract), 1 for `# …`, 0 when there is no heading. */
  level: number;
  /** Lines between the heading and the first `###` section: where `**Change**` and `**Status**` live. */
  preamble: MarkdownLine[];
  sections: ReportSection[];
}

/** A `**Status**:`-like line: optional bullet, optional emphasis, the word, a colon somewhere after. */
export const FIELD_LINE =
  /^\s*(?:[-*+]\s+)?(?:(?:\*\*|__)\s*)?(change|status|project)\s*(?:(?:\*\*|__)\s*)?:\s*(.*)$/i;

/**
 * Finds the report in normalized lines. The reply is cut at every `#`/`##` heading outside code; the
 * LAST piece holding report fields (a Status line before its first `###`, or a `###` section the
 * contract names) is the report, so prose, quoted earlier reports and later unrelated headings do not
 * count. The text before the first heading counts too, as a report without a heading. Null when no
 * piece holds report fields. Never throws.
 */
export function findReportBlock(lines: readonly MarkdownLine[]): ReportBlock | null {
  const pieces: { heading: string | null; level: number; body: MarkdownLine[] }[] = [
    { heading: null, level: 0, body: [] },
  ];
  for (const line of lines) {
    const top = line.code ? null : atxHeading(line.text);
    if (top && top.level <= 2) pieces.push({ heading: cleanTitle(top.text), level: top.level, body: [] });
    else pieces[pieces.length - 1]?.body.push(line);
  }
  for (let i = pieces.length - 1; i >= 0; i--) {
    const piece = pieces[i];
    if (!piece) continue;
    const block = splitSections(piece.heading, piece.level, piece.body);
    if (holdsReportFields(block)) return block;
  }
  return null;
}

/** What a `###` title names: case, emphasis, a trailing colon and the contract's near-spellings are forgiven. */
export function sectionKey(title: string): SectionKey | null {
  const name = cleanTitle(title)
    .toLowerCase()
    .replace(/[:.]+$/, "")
    .replace(/\s+/g, " ")
    .trim();
  if (name === "summary") return "summary";
  if (/^artifacts?$|^artefacts?$/.test(name)) return "artifacts";
  if (/^next recommend(ed|ation|ations)?( steps?| actions?)?$/.test(name)) return "next_recommended";
  if (/^risks?$/.test(name)) return "risks";
  if (name === "status") return "status";
  if (name === "change") return "change";
  return null;
}

function splitSections(heading: string | null, level: number, body: MarkdownLine[]): ReportBlock {
  const block: ReportBlock = { heading, level, preamble: [], sections: [] };
  for (const line of body) {
    const match = line.code ? null : atxHeading(line.text);
    if (match?.level === 3) {
      const title = cleanTitle(match.text);
      block.sections.push({ title, key: sectionKey(title), lines: [] });
    } else {
      const current = block.sections[block.sections.length - 1];
      (current ? current.lines : block.preamble).push(line);
    }
  }
  return block;
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
  return block.preamble.some((line) => !line.code && /^status$/i.test(FIELD_LINE.exec(line.text)?.[1] ?? ""));
}

/** A heading's text without emphasis markers around it or a trailing colon. */
function cleanTitle(text: string): string {
  return text
    .trim()
    .replace(/^[*_]+|[*_]+$/g, "")
    .replace(/:$/, "")
    .trim();
}
