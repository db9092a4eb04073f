import type { GateReport } from "../gates/gate.js";
import { failedGateSections } from "./correction.js";
import type { MarkdownProblem } from "./markdown-parse.js";
import { exampleMarkdownBlock, markdownContractRules } from "./markdown-report-section.js";
import type { OutputType } from "./output-type.js";

/** How a section is written in the report: `## <Phase Name>`, `**Status**`, `### Summary`… */
export function sectionLabel(section: string): string {
  if (section === "heading") return "`## <Phase Name>` heading";
  if (section === "Status" || section === "Change") return `\`**${section}**\``;
  if (["Summary", "Artifacts", "Next Recommended", "Risks"].includes(section)) return `\`### ${section}\``;
  return section === "" ? "report" : `\`${section}\``;
}

/**
 * The message sent back into the same agent session when its reply held no valid Markdown report: one
 * bullet per problem naming the section (`### Summary`: missing: …), then a request for the complete
 * report with the type's example and the contract's rules. Deterministic. Never throws for a type that
 * `markdownTypeProblem` accepts.
 *
 * @example markdownCorrectionMessage(MarkdownResult, [{ section: "Summary", message: "missing: …" }]);
 */
export function markdownCorrectionMessage(type: OutputType, problems: readonly MarkdownProblem[]): string {
  const bullets =
    problems.length > 0
      ? problems.map((problem) => `- ${sectionLabel(problem.section)}: ${problem.message}`)
      : ["- the report could not be read"];
  return [
    "Your reply could not be accepted: it must end with a Markdown report in the result contract's shape.",
    "",
    "Problems:",
    ...bullets,
    "",
    "Reply with the complete corrected report, every required section filled in, and nothing after it. " +
      "Expected shape:",
    "",
    exampleMarkdownBlock(type),
    "",
    "Rules:",
    ...markdownContractRules(),
  ].join("\n");
}

/**
 * The message sent back into the same agent session when gates found a Markdown report's claims untrue:
 * per failed gate, each violation, then a request to fix the work or the claims and reply with the
 * complete report. Passing reports are left out. Deterministic. Never throws.
 *
 * @example markdownGateCorrectionMessage(reports.filter((report) => !report.ok));
 */
export function markdownGateCorrectionMessage(reports: readonly GateReport[]): string {
  return [
    "Your Markdown report was readable, but checking its claims found problems.",
    "",
    ...failedGateSections(reports),
    "Fix the work, or correct the claims that are wrong, then reply again with the complete Markdown report " +
      "(`## <Phase Name>`, `**Status**`, `### Summary`, `### Artifacts`, `### Next Recommended`, `### Risks`) " +
      "and nothing after it.",
  ].join("\n");
}
