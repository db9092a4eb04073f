import type { MarkdownResultEnvelope } from "./markdown-parse.js";
import { renderMarkdownResult } from "./markdown-render.js";
import type { OutputType } from "./output-type.js";

/**
 * The rules of the Markdown result contract, one bullet each: the shape, the status words, what every
 * section holds, the severities and the "None." rules. Shared by the `## Report` section and the
 * correction message so both say the same thing. Never throws.
 */
export function markdownContractRules(): string[] {
  return [
    "- Heading: `## <Phase Name>` (exactly two #), such as `## Proposal Created` or `## Verification Report`.",
    "- `**Change**: <change-name>`: the change this result is about; leave the line out when there is none.",
    "- `**Status**:` exactly one of `success` (done, no issues), `warning` (done, with non-blocking concerns: " +
      "list them under Risks) or `failure` (failed or blocked: say what blocks it). " +
      "Never report `success` with a CRITICAL risk.",
    "- `### Summary` (required): 1-3 sentences on what happened.",
    "- `### Artifacts` (required): one `- ` item per file you created or updated (path relative to the repo " +
      "root) or observation id (`#obs_12345`); `None.` when there are none.",
    "- `### Next Recommended` (required): what should happen next, specifically: name the phase, the file " +
      'or the blocker ("Ready for specs (sdd-spec)", "Blocked: resolve X before Y"), never just "continue".',
    "- `### Risks`: one `- ` item per risk, starting with its severity: `**CRITICAL**:` (must be resolved " +
      "before proceeding), `**WARNING**:` (should be addressed, does not block) or `**SUGGESTION**:` " +
      "(nice to have); `None.` when there are none.",
  ];
}

/** The type's example rendered as a report inside a ```` ```markdown ```` fence. */
export function exampleMarkdownBlock(type: OutputType): string {
  const example = type.schema.parse(type.example) as MarkdownResultEnvelope;
  return `\`\`\`markdown\n${renderMarkdownResult(example)}\`\`\``;
}

/**
 * The prompt's `## Report` section for a call with `format: "markdown"`: end the reply with the report,
 * the type's example rendered by `renderMarkdownResult` (the renderer whose output the parser reads
 * back), and the contract's rules. `type` must be MarkdownResult or extend it. Deterministic; throws
 * only when the type's example does not parse against its own schema (defineOutputType forbids that).
 *
 * @example userPrompt += `\n\n${markdownReportSection(MarkdownResult)}`;
 */
export function markdownReportSection(type: OutputType): string {
  return [
    "## Report",
    "",
    "End your reply with this Markdown report and nothing after it (the last report in your reply is the " +
      "one read). Use exactly this shape:",
    "",
    exampleMarkdownBlock(type),
    "",
    "Rules:",
    ...markdownContractRules(),
  ].join("\n");
}
