import { zodIssueProblems } from "../util/zod-issues.js";
import { FIELD_LINE, findReportBlock, type ReportBlock, type SectionKey } from "./markdown-blocks.js";
import { artifactClaims, isNoneItem, listItems, parseRiskItem } from "./markdown-lists.js";
import { MarkdownResult, type Risk } from "./markdown-result-type.js";
import { type MarkdownLine, markdownLines, sectionText } from "./markdown-text.js";
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
 * a ```` ```markdown ```` fence around it are fine). Lenient on whitespace, CRLF, tabs, heading case,
 * section order, bullet styles, `Status:` without bold, backticks and HTML entities; strict on the
 * required parts: the heading, `**Status**` (success | warning | failure), `### Summary`,
 * `### Artifacts` (`None.` for none) and `### Next Recommended` — every missing, empty, duplicated or
 * invalid one is a problem, as is a Risks item without a severity. `**Project**:` (init reports) is
 * accepted and not kept: `change` stays "" because it names a change, which a project is not.
 * Mapping: success/warning → `status: "success"` (`warning: true` for warning), failure → `"fail"`;
 * `notes_for_next_agent` = Next Recommended. Never throws.
 *
 * @example
 * const parsed = parseMarkdownResult(reply);
 * if (parsed.ok && parsed.envelope.warning) console.log(parsed.envelope.risks);
 */
export function parseMarkdownResult(text: string): ParseMarkdownResult {
  const block = findReportBlock(markdownLines(text));
  if (block === null) {
    const keys = ["heading", "status", "summary", "artifacts", "next_recommended"] as const;
    return {
      ok: false,
      problems: keys.map((key) => ({ section: SECTION_NAMES[key], message: MISSING[key] })),
    };
  }
  const problems: MarkdownProblem[] = [];
  const problem = (key: SectionKey | "heading", message: string) =>
    problems.push({ section: SECTION_NAMES[key], message });

  if (block.level === 0) problem("heading", MISSING.heading);
  else if (block.level === 1)
    problem("heading", `\`# ${block.heading}\` has one #: write \`## ${block.heading}\``);
  else if (!block.heading) problem("heading", "is empty: name the phase, such as `## Proposal Created`");

  const sections = groupSections(block);
  for (const [key, found] of sections) {
    if (found.length > 1) {
      problem(key, `appears ${found.length} times: keep one \`### ${SECTION_NAMES[key]}\` section`);
    }
  }
  const fields = preambleFields(block.preamble, sections);
  const resultStatus = readStatus(fields.status, (message) => problem("status", message));
  const summary = requiredText(sections, "summary", problem);
  const artifacts = readArtifacts(sections.get("artifacts")?.[0], problem);
  const next = requiredText(sections, "next_recommended", problem);
  const risks = readRisks(sections.get("risks")?.[0] ?? [], (message) => problem("risks", message));
  if (problems.length > 0 || resultStatus === null) return { ok: false, problems };

  const candidate = {
    status: resultStatus === "failure" ? "fail" : "success",
    summary,
    artifacts,
    notes_for_next_agent: next,
    phase: block.heading ?? "",
    change: cleanValue(fields.change[0] ?? ""),
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

/** `**Change**`/`**Status**` values from the preamble, then from `### Status`/`### Change` sections. */
function preambleFields(preamble: readonly MarkdownLine[], sections: Sections) {
  const fields = { change: [] as string[], status: [] as string[] };
  preamble.forEach((line, index) => {
    const match = line.code ? null : FIELD_LINE.exec(line.text);
    const name = match?.[1]?.toLowerCase();
    if (name !== "change" && name !== "status") return;
    // `**Status**:` alone on its line: the value is on the next non-blank line.
    const value = match?.[2]?.trim() || preamble.slice(index + 1).find((l) => l.text.trim() !== "")?.text;
    fields[name].push(value?.trim() ?? "");
  });
  for (const key of ["change", "status"] as const) {
    const first = sections.get(key)?.[0]?.find((line) => line.text.trim() !== "");
    if (first) fields[key].push(first.text.trim());
  }
  return fields;
}

function readStatus(values: string[], report: (message: string) => void): ReportStatus | null {
  if (values.length === 0) {
    report(MISSING.status);
    return null;
  }
  const words = [...new Set(values.map((value) => cleanValue(value).toLowerCase()))];
  if (words.length > 1) {
    report(`is given ${words.length} times with different values (${words.join(", ")}): give it once`);
    return null;
  }
  const value = words[0] ?? "";
  const word = /^(success|warning|failure)(?![a-z])/i.exec(value.replace(/^[^a-z]+/i, ""))?.[1];
  if (word === undefined || value.includes("|")) {
    report(`${JSON.stringify(value)} is not a status: write exactly one of success, warning, failure`);
    return null;
  }
  return word.toLowerCase() as ReportStatus;
}

function requiredText(
  sections: Sections,
  key: "summary" | "next_recommended",
  problem: (key: SectionKey, message: string) => void,
): string {
  const lines = sections.get(key)?.[0];
  if (lines === undefined) {
    problem(key, MISSING[key]);
    return "";
  }
  const text = sectionText(lines);
  if (text === "") problem(key, `is empty: ${MISSING[key].replace(/^missing: add/, "write")}`);
  return text;
}

function readArtifacts(
  lines: MarkdownLine[] | undefined,
  problem: (key: SectionKey, message: string) => void,
): string[] {
  if (lines === undefined) {
    problem("artifacts", MISSING.artifacts);
    return [];
  }
  const items = listItems(lines);
  if (items.length === 0) {
    problem("artifacts", "is empty: list each file path or observation id (`- path`), or write `None.`");
  }
  return items.filter((item) => !isNoneItem(item)).flatMap(artifactClaims);
}

function readRisks(lines: MarkdownLine[], report: (message: string) => void): Risk[] {
  const items = listItems(lines);
  if (items.length === 1 && isNoneItem(items[0] ?? "")) return [];
  const risks: Risk[] = [];
  items.forEach((item, index) => {
    const risk = parseRiskItem(item);
    const quoted = JSON.stringify(item.length > 60 ? `${item.slice(0, 57)}...` : item);
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
