import { shortenText } from "../util/shorten-text.js";
import { zodIssueProblems } from "../util/zod-issues.js";
import { findReportBlocks, type ReportBlock, type ReportField, type SectionKey } from "./markdown-blocks.js";
import { splitInlineArtifacts, splitInlineRisks } from "./markdown-fields.js";
import { artifactClaims, isNoneItem, listItems, parseRiskItem } from "./markdown-lists.js";
import { MarkdownResult, type Risk } from "./markdown-result-type.js";
import { countSentences } from "./markdown-sentences.js";
import { type MarkdownLine, markdownLines, plainText, sectionText } from "./markdown-text.js";
import type { EnvelopeOf } from "./output-type.js";

/** A parsed Markdown report: the MarkdownResult envelope. */
export type MarkdownResultEnvelope = EnvelopeOf<typeof MarkdownResult>;

/**
 * One missing or invalid part of a Markdown report. `section` is the part's contract name:
 * "heading", "Change", "Status", "Summary", "Artifacts", "Next Recommended" or "Risks".
 */
export interface MarkdownProblem {
  section: string;
  message: string;
}

export type ParseMarkdownResult =
  | { ok: true; envelope: MarkdownResultEnvelope }
  | { ok: false; problems: MarkdownProblem[] };

type ReportStatus = MarkdownResultEnvelope["result_status"];
type Sections = Map<SectionKey, MarkdownLine[][]>;
type ListKey = "artifacts" | "risks";
type TextKey = "summary" | "next_recommended";
/** Where a datum was read: a bold field (its value on the line and after it), or a `###` section. */
type Datum = { inline: string; lines: MarkdownLine[] };

/** The phase of a compact report that stands under no `## ` heading. */
export const COMPACT_PHASE = "Report";
/** The most sentences a Summary may hold (the contract's "1-3 sentences"). */
export const SUMMARY_MAX_SENTENCES = 3;
/** Status words beside the contract's three, and the contract word each means (Agent Teams Lite's). */
const STATUS_SYNONYMS: Record<string, ReportStatus> = { partial: "warning", blocked: "failure" };

/** The contract name of each section key, as problems and corrections spell it. */
export const SECTION_NAMES: Record<SectionKey | "heading", string> = {
  heading: "heading",
  change: "Change",
  status: "Status",
  summary: "Summary",
  artifacts: "Artifacts",
  next_recommended: "Next Recommended",
  risks: "Risks",
};

const MISSING: Record<"heading" | "status" | "summary" | "artifacts" | "next_recommended", string> = {
  heading: "missing: start the report with a `## <Phase Name>` heading, such as `## Proposal Created`",
  status: "missing: add the line `**Status**: success` (or `warning`, `failure`) under the heading",
  summary: "missing: add a `### Summary` section of 1-3 sentences",
  artifacts:
    "missing: add an `### Artifacts` section listing each file path or observation id (`- path`), or `None.`",
  next_recommended:
    "missing: add a `### Next Recommended` section saying specifically what should happen next",
};

/**
 * Parses the Markdown result contract (third seed) out of an agent's reply into a MarkdownResult
 * envelope. The LAST `## …` heading followed by report fields is the report (prose, quoted reports and
 * a ```` ```markdown ```` fence around it are fine). Two forms, mixed freely: `###` sections (the seed's)
 * and bold fields (`**Summary**: …`, `**Next**: …`, the compact form of Agent Teams Lite's skills); a
 * datum given both ways is read from its bold field (the section is then the detailed report). Synonyms:
 * `Next`, `Next Step(s)` for Next Recommended, `Executive Summary`, `partial` (→ warning) and `blocked`
 * (→ failure) as status words. Lenient on whitespace, CRLF, tabs, case, order, bullet styles, `Status:`
 * without bold, backticks and HTML entities; strict on the data: the heading (a compact report without
 * `###` sections may stand without one: its phase is "Report"), `**Status**` (success | warning |
 * failure), a Summary of 1-3 sentences, Artifacts (`None.` for none) and Next Recommended — every
 * missing, empty, duplicated or invalid one is a problem, as is a Risks item without a severity.
 * `**Project**:` (init reports) is accepted and not kept: `change` stays "" because it names a change,
 * which a project is not. Mapping: success/warning → `status: "success"` (`warning: true` for
 * warning), failure → `"fail"`; `notes_for_next_agent` = Next Recommended. Never throws.
 *
 * @example
 * const parsed = parseMarkdownResult(reply);
 * if (parsed.ok && parsed.envelope.warning) console.log(parsed.envelope.risks);
 */
export function parseMarkdownResult(text: string): ParseMarkdownResult {
  const blocks = findReportBlocks(markdownLines(text));
  const block = blocks.at(-1);
  if (block === undefined) {
    const keys = ["heading", "status", "summary", "artifacts", "next_recommended"] as const;
    return {
      ok: false,
      problems: keys.map((key) => ({ section: SECTION_NAMES[key], message: MISSING[key] })),
    };
  }
  const problems: MarkdownProblem[] = [];
  const problem = (key: SectionKey | "heading", message: string) =>
    problems.push({ section: SECTION_NAMES[key], message });

  const compact = block.sections.every((section) => section.key === null);
  if (block.level === 0 && !compact) problem("heading", MISSING.heading);
  else if (block.level === 1)
    problem("heading", `\`# ${block.heading}\` has one #: write \`## ${block.heading}\``);
  else if (block.level === 2 && !block.heading)
    problem("heading", "is empty: name the phase, such as `## Proposal Created`");

  const sections = groupSections(block);
  const read = (key: ListKey | TextKey) => datum(block, sections, key, problem);
  for (const [key, found] of sections) {
    const overridden = key !== "status" && key !== "change" && hasField(block, key);
    if (found.length > 1 && !overridden) {
      problem(key, `appears ${found.length} times: keep one \`### ${SECTION_NAMES[key]}\` section`);
    }
  }
  const resultStatus = readStatus(statusValues(block, sections), (message) => problem("status", message));
  const disagreement = disagreeingStatuses(blocks);
  if (disagreement !== null) problem("status", disagreement);
  const summary = requiredText(read("summary"), "summary", problem);
  const sentences = countSentences(summary);
  if (sentences > SUMMARY_MAX_SENTENCES) {
    problem(
      "summary",
      `has ${sentences} sentences: write 1-${SUMMARY_MAX_SENTENCES} sentences on what happened ` +
        "(the details belong in the artifacts)",
    );
  }
  const artifacts = readArtifacts(read("artifacts"), problem);
  const next = requiredText(read("next_recommended"), "next_recommended", problem);
  const risks = readRisks(read("risks"), (message) => problem("risks", message));
  if (problems.length > 0 || resultStatus === null) return { ok: false, problems };

  const candidate = {
    status: resultStatus === "failure" ? "fail" : "success",
    summary,
    artifacts,
    notes_for_next_agent: next,
    phase: block.level === 0 ? COMPACT_PHASE : (block.heading ?? ""),
    change: cleanValue(changeValue(block, sections)),
    result_status: resultStatus,
    warning: resultStatus === "warning",
    next_recommended: next,
    risks,
  };
  const checked = MarkdownResult.schema.safeParse(candidate);
  if (checked.success) return { ok: true, envelope: checked.data };
  return {
    ok: false,
    problems: zodIssueProblems(checked.error.issues, { wording: "agent", value: candidate }).map((p) => ({
      section: p.path,
      message: p.message,
    })),
  };
}

function groupSections(block: ReportBlock): Sections {
  const sections: Sections = new Map();
  for (const section of block.sections) {
    if (section.key === null) continue;
    sections.set(section.key, [...(sections.get(section.key) ?? []), section.lines]);
  }
  return sections;
}

function hasField(block: ReportBlock, key: SectionKey): boolean {
  return block.fields.some((field) => field.key === key);
}

/**
 * A datum's bold field when there is one (a second one is a problem), else its first `###` section;
 * undefined when neither is there.
 */
function datum(
  block: ReportBlock,
  sections: Sections,
  key: ListKey | TextKey,
  problem: (key: SectionKey, message: string) => void,
): Datum | undefined {
  const fields = block.fields.filter((field) => field.key === key);
  const [first] = fields;
  if (first !== undefined) {
    if (fields.length > 1) {
      problem(key, `is given ${fields.length} times: keep one \`**${first.name}**:\` line`);
    }
    return { inline: first.rest, lines: first.lines };
  }
  const lines = sections.get(key)?.[0];
  return lines === undefined ? undefined : { inline: "", lines };
}

/** The first non-blank line of a field's value: its own line's rest, else the next line. */
function fieldValue(field: ReportField): string {
  return field.rest || (field.lines.find((line) => line.text.trim() !== "")?.text.trim() ?? "");
}

/**
 * Status values: every `**Status**` field, and the first line of every `### Status` section. A
 * section line that is no status word (Agent Teams Lite's apply writes `3/3 tasks complete` there) is
 * left out when a field gives the status.
 */
function statusValues(block: ReportBlock, sections: Sections): string[] {
  const fields = block.fields.filter((field) => field.key === "status").map(fieldValue);
  const fromSections = (sections.get("status") ?? [])
    .map((lines) => lines.find((line) => line.text.trim() !== "")?.text.trim())
    .filter((value): value is string => value !== undefined);
  if (fields.length === 0) return fromSections;
  return [...fields, ...fromSections.filter((value) => statusWord(value) !== null)];
}

function changeValue(block: ReportBlock, sections: Sections): string {
  const field = block.fields.find((f) => f.key === "change");
  if (field !== undefined) return fieldValue(field);
  const first = sections.get("change")?.[0]?.find((line) => line.text.trim() !== "");
  return first?.text.trim() ?? "";
}

/**
 * When the reply's reports (the final one and every earlier or quoted one) give different statuses,
 * why that is ambiguous; else null. Never resolved in favour of either: the agent is asked again.
 */
function disagreeingStatuses(blocks: readonly ReportBlock[]): string | null {
  if (blocks.length < 2) return null;
  const given = new Map<ReportStatus, string>();
  for (const each of blocks) {
    for (const value of statusValues(each, groupSections(each))) {
      const word = statusWord(value);
      if (word !== null && !given.has(word))
        given.set(word, each.heading === null ? "a report without a heading" : `\`## ${each.heading}\``);
    }
  }
  if (given.size < 2) return null;
  const each = [...given].map(([word, where]) => `${word} (${where})`).join(" and ");
  return `is ambiguous: the reply holds ${blocks.length} reports whose Status says ${each}; end the reply with exactly one report, the true one, and quote no other`;
}

/** A status value as plain text: formatting removed, struck-through words left out (`~~success~~ failure` is failure). */
function statusText(value: string): string {
  return cleanValue(plainText(value));
}

/** The contract word a status value starts with (synonyms mapped), or null (also when a strike mark is left unmatched). */
function statusWord(value: string): ReportStatus | null {
  const bare = statusText(value).toLowerCase();
  if (bare.includes("|") || bare.includes("~")) return null;
  const word = /^(success|warning|failure|partial|blocked)(?![a-z])/.exec(bare.replace(/^[^a-z]+/, ""))?.[1];
  if (word === undefined) return null;
  return STATUS_SYNONYMS[word] ?? (word as ReportStatus);
}

function readStatus(values: string[], report: (message: string) => void): ReportStatus | null {
  if (values.length === 0) {
    report(MISSING.status);
    return null;
  }
  const words = [...new Set(values.map((value) => statusText(value).toLowerCase()))];
  const meanings = [...new Set(words.map(statusWord))];
  if (words.length > 1 && meanings.length > 1) {
    report(`is given ${words.length} times with different values (${words.join(", ")}): give it once`);
    return null;
  }
  const word = meanings[0] ?? null;
  if (word === null) {
    report(
      `${JSON.stringify(words[0] ?? "")} is not a status: write exactly one of success, warning, failure`,
    );
  }
  return word;
}

function requiredText(
  found: Datum | undefined,
  key: TextKey,
  problem: (key: SectionKey, message: string) => void,
): string {
  if (found === undefined) {
    problem(key, MISSING[key]);
    return "";
  }
  const first: MarkdownLine[] = found.inline === "" ? [] : [{ text: found.inline, code: false }];
  const text = sectionText([...first, ...found.lines]);
  if (text === "") problem(key, `is empty: ${MISSING[key].replace(/^missing: add/, "write")}`);
  return text;
}

function readArtifacts(
  found: Datum | undefined,
  problem: (key: SectionKey, message: string) => void,
): string[] {
  if (found === undefined) {
    problem("artifacts", MISSING.artifacts);
    return [];
  }
  const items = [...splitInlineArtifacts(found.inline), ...listItems(found.lines)];
  if (items.length === 0) {
    problem("artifacts", "is empty: list each file path or observation id (`- path`), or write `None.`");
  }
  return items.filter((item) => !isNoneItem(item)).flatMap(artifactClaims);
}

function readRisks(found: Datum | undefined, report: (message: string) => void): Risk[] {
  const items = found === undefined ? [] : [...splitInlineRisks(found.inline), ...listItems(found.lines)];
  if (items.length === 1 && isNoneItem(items[0] ?? "")) return [];
  const risks: Risk[] = [];
  items.forEach((item, index) => {
    const risk = parseRiskItem(item);
    const quoted = JSON.stringify(shortenText(item, 60));
    if (risk === null) {
      report(
        `item ${index + 1} (${quoted}) has no severity: start it with **CRITICAL**:, **WARNING**: or **SUGGESTION**:`,
      );
    } else if (risk.text === "") {
      report(`item ${index + 1} (${quoted}) has a severity but no text: say what the risk is`);
    } else {
      risks.push(risk);
    }
  });
  return risks;
}

/** A field value without backticks, emphasis, braces or trailing punctuation. */
function cleanValue(value: string): string {
  return value
    .replace(/[`*{}]/g, "")
    .replace(/^_+|_+$/g, "")
    .replace(/[.,;!]+$/, "")
    .trim();
}
