/**
 * Where a call's `## Report` goes in a `user.md` template. The section reaching the agent is always
 * generated from the call's own output type: a `## Report` section in the template is replaced by it,
 * and a template without one gets it appended (unless it places the contract itself with
 * `{{output_schema}}`). `sssf init` marks the section it writes as generated; a section without the
 * mark is hand-written, and one that names another output type is worth a warning.
 */

/** The line `sssf init` writes above a generated `## Report`: the engine regenerates that section per call. */
export const GENERATED_REPORT_MARK =
  "<!-- sssf: the Report section below is regenerated for every call from that call's output type; put instructions above it -->";

/** A `## Report` section found in a template. */
export interface TemplateReport {
  /** The template before the section (the mark above it excluded). */
  before: string;
  /** The template after the section (from the next `#`/`##` heading on, or ""). */
  after: string;
  /** The section as written. */
  text: string;
  /** True when `sssf init` wrote it (the mark stands right above it). */
  generated: boolean;
  /** Output type names the section mentions (`PlanOutput`, `MarkdownResult`…), in order, once each. */
  namedTypes: string[];
}

const HEADING = /^##\s+Report\b.*$/m;
const TYPE_NAME = /\b([A-Z][A-Za-z0-9]*(?:Output|Result))\b/g;

/** The template's `## Report` section, or null when it has none. Never throws. */
export function findTemplateReport(template: string): TemplateReport | null {
  const heading = HEADING.exec(template);
  if (!heading) return null;
  const start = heading.index;
  const rest = template.slice(start + heading[0].length);
  const next = /^#{1,2}\s/m.exec(rest);
  const end = next ? start + heading[0].length + next.index : template.length;
  let before = template.slice(0, start);
  const markAt = before.trimEnd().endsWith(GENERATED_REPORT_MARK)
    ? before.trimEnd().length - GENERATED_REPORT_MARK.length
    : -1;
  if (markAt >= 0) before = before.slice(0, markAt);
  const text = template.slice(start, end);
  return {
    before,
    after: template.slice(end),
    text,
    generated: markAt >= 0,
    namedTypes: [...new Set([...text.matchAll(TYPE_NAME)].map((m) => m[1] ?? ""))],
  };
}

/**
 * The type names a hand-written section mentions that are not `typeName`: the sign that it tells the
 * agent another contract than the call's. Empty for a generated section or one naming only `typeName`.
 */
export function staleReportTypes(report: TemplateReport, typeName: string): string[] {
  return report.generated ? [] : report.namedTypes.filter((name) => name !== typeName);
}
