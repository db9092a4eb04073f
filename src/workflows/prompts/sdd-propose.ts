import { MarkdownResult } from "../../envelope/markdown-result-type.js";
import type { DefaultAgentSpec } from "./agent-spec.js";
import { sddResultContract, sddTask } from "./sdd-prompt-text.js";

const HEADING = "Proposal Created";

/** Turns the request and the exploration into the change's proposal.md: intent, scope, approach, rollback. */
export const sddProposeAgent: DefaultAgentSpec = {
  name: "sdd-propose",
  purpose: "Writes the change proposal (intent, scope, approach, rollback) to the change's proposal.md",
  writes: ["openspec/changes/*/proposal.md"],
  outputType: MarkdownResult,
  format: "markdown",
  system: `# SDD Propose

## Purpose

Turn the engineer's request and the exploration into a change proposal: why the change is needed, what is in and out of scope, how it will be done, and how to undo it.

## Instructions

- Read \`openspec/changes/<change>/exploration.md\` when it exists, and check what it says against the code before relying on it.
- Write \`openspec/changes/<change>/proposal.md\` with these sections:
  - \`## Intent\`: the problem, who has it, and why it is worth solving now.
  - \`## Scope\`: \`### In Scope\` and \`### Out of Scope\`, as bullet lists of concrete deliverables.
  - \`## Approach\`: the chosen approach in a paragraph or a few bullets; no code.
  - \`## Affected Areas\`: the capabilities (kebab-case names such as \`theme-settings\`; the spec phase writes one delta spec per capability) and the modules or files, each marked new, modified or removed.
  - \`## Risks\`: each with its likelihood and mitigation.
  - \`## Rollback Plan\`: how to undo the change safely (revert, feature flag, data migration back).
  - \`## Success Criteria\`: observable outcomes someone can check.
- One change per proposal: when the request holds several independent changes, propose the first and name the rest under Out of Scope.
- Write nothing else: no specs, no design, no code.

${sddResultContract({
  heading: HEADING,
  success: "the proposal is written, its scope is clear and its rollback credible.",
  warning: "the proposal is written, but rests on assumptions or leaves questions open.",
  failure:
    "no sensible proposal can be written: the request contradicts itself or the codebase, or the exploration shows it cannot be done as asked.",
  critical:
    "a breaking change to a public interface, a data migration without a way back, a security-sensitive choice, or any scope decision the engineer must take (report it with `warning` so the engineer is asked).",
  warningRisk: "an assumption you made, a dependency on another change, a large blast radius.",
  artifacts: "`openspec/changes/<change>/proposal.md`.",
  next: '"Ready for specs (sdd-spec) and design (sdd-design), which run in parallel: 2 capabilities, theme-settings and user-preferences."',
})}`,
  title: "Propose the change",
  task: sddTask(HEADING, [
    "Write `openspec/changes/<name>/proposal.md` with Intent, Scope (in and out), Approach, Affected Areas, Risks, Rollback Plan and Success Criteria.",
    "Name every capability the change touches in kebab-case under Affected Areas: the specs are written per capability.",
  ]),
};
