import type { MarkdownResultEnvelope } from "./markdown-parse.js";

/**
 * Renders an envelope as the Markdown result contract, in the contract's order: `## {phase}`,
 * `**Change**` (left out when `change` is ""), `**Status**` (the contract word, `result_status`),
 * `### Summary`, `### Artifacts` (`- ` items, or `None.`), `### Next Recommended`
 * (`next_recommended`), `### Risks` (`- **SEVERITY**: text` items, or `None.`). An artifact holding
 * whitespace is written as inline code so it reads back whole. For any envelope `parseMarkdownResult`
 * produced, parsing the rendering gives the same envelope back. Deterministic; never throws.
 *
 * @example renderMarkdownResult(parsed.envelope).startsWith("## Proposal Created\n")
 */
export function renderMarkdownResult(envelope: MarkdownResultEnvelope): string {
  const lines = [`## ${envelope.phase}`, ""];
  if (envelope.change !== "") lines.push(`**Change**: ${envelope.change}`);
  lines.push(`**Status**: ${envelope.result_status}`, "");
  lines.push("### Summary", envelope.summary, "");
  lines.push("### Artifacts", ...listOrNone(envelope.artifacts.map(artifactItem)), "");
  lines.push("### Next Recommended", envelope.next_recommended, "");
  lines.push("### Risks", ...listOrNone(envelope.risks.map((risk) => `**${risk.severity}**: ${risk.text}`)));
  return `${lines.join("\n")}\n`;
}

function listOrNone(items: string[]): string[] {
  return items.length === 0 ? ["None."] : items.map((item) => `- ${item}`);
}

function artifactItem(artifact: string): string {
  return /^[^\s`]+$/.test(artifact) ? artifact : `\`${artifact}\``;
}
