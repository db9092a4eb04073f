/**
 * Text every sdd agent's prompts share: the closing "Result contract" section of `system.md`, with the
 * phase's own rules for each status and severity, and the common lines of the `user.md` task. The
 * contract's shape itself comes from `reportSection(MarkdownResult, "markdown")` in `user.md`.
 */

/** What one sdd phase means by each status and severity, in its own words. */
export interface SddContractRules {
  /** The report heading without "## ", e.g. "Exploration Complete". */
  heading: string;
  /** When this phase reports `success`. */
  success: string;
  /** When it reports `warning`. */
  warning: string;
  /** When it reports `failure`. */
  failure: string;
  /** What counts as CRITICAL in this phase. */
  critical: string;
  /** What counts as WARNING in this phase. */
  warningRisk: string;
  /** What `### Artifacts` lists. */
  artifacts: string;
  /** One or two specific Next Recommended lines, as examples. */
  next: string;
  /** What sssf does with a CRITICAL risk in a report that did not fail (default: asks the engineer). */
  criticalEffect?: string;
}

const ASK =
  "A CRITICAL risk in a `warning` report makes sssf stop and ask the engineer to approve or reject before the next phase starts.";

/**
 * The `## Result contract` section that ends every sdd `system.md`: the heading to use, exactly when to
 * report success, warning or failure, the severities, ALL artifacts, a specific Next Recommended.
 * Deterministic; never throws.
 */
export function sddResultContract(rules: SddContractRules): string {
  return `## Result contract

End your reply with the Markdown report shown in the user prompt, headed \`## ${rules.heading}\`, and nothing after it. sssf parses it, checks it, and decides from it whether the run proceeds, asks the engineer, or stops; a malformed report is sent back to you to fix.

- \`**Change**\`: the change name given in the prompt, exactly as written.
- \`**Status**\`: exactly one word:
  - \`success\`: ${rules.success} No CRITICAL risk.
  - \`warning\`: ${rules.warning} List every concern under Risks (at least one).
  - \`failure\`: ${rules.failure} Name what blocks it as a CRITICAL risk, and what must be fixed in Next Recommended.
- Never report \`success\` with a CRITICAL risk.
- \`### Risks\`: one item per risk, most severe first, or \`None.\`:
  - \`**CRITICAL**:\` must be resolved before proceeding: ${rules.critical} ${rules.criticalEffect ?? ASK}
  - \`**WARNING**:\` should be addressed, does not block: ${rules.warningRisk}
  - \`**SUGGESTION**:\` nice to have; never a reason to stop.
- \`### Artifacts\`: ALL the files you created or updated, one repo-relative path per item, no more and no fewer: ${rules.artifacts} sssf checks that every listed path exists.
- \`### Next Recommended\`: specific: name the next phase, the file, or the blocker, never just "continue". For example: ${rules.next}
- \`### Summary\`: one to three sentences on what you did and found, with numbers where they help.
`;
}

/**
 * The `## Task` body of an sdd `user.md`: what `prompt`, `previous_envelope` and `context_handoff_dir`
 * hold, then the phase's own lines, then the reminder of the report heading. Deterministic; never throws.
 */
export function sddTask(heading: string, lines: readonly string[]): string {
  return [
    "`prompt` holds the engineer's request, then `Change: <name>`, `Artifacts folder: openspec/changes/<name>/` and this phase's job. Do that job, for that change, in that folder.",
    "",
    "- `previous_envelope` is `(none)` or the report of the phase before yours (`summary`, `artifacts`, `next_recommended`, `risks`): read the artifacts it lists and take its risks into account.",
    "- Files in `context_handoff_dir` are notes left by earlier agents of this run; read the ones that concern you.",
    ...lines.map((line) => `- ${line}`),
    `- End with the report below, headed \`## ${heading}\`, with \`**Change**: <name>\` and every file you wrote under \`### Artifacts\`.`,
  ].join("\n");
}
