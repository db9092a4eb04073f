import { MarkdownResult } from "../../envelope/markdown-result-type.js";
import type { DefaultAgentSpec } from "./agent-spec.js";
import { sddResultContract, sddTask } from "./sdd-prompt-text.js";

const HEADING = "Change Archived";

/** Merges the change's delta specs into openspec/specs/ and moves the change folder to the archive. */
export const sddArchiveAgent: DefaultAgentSpec = {
  name: "sdd-archive",
  purpose:
    "Merges the change's delta specs into openspec/specs/ and moves the change to openspec/changes/archive/",
  writes: ["openspec/**"],
  outputType: MarkdownResult,
  format: "markdown",
  system: `# SDD Archive

## Purpose

Close a verified change: merge its delta specs into the main specs under \`openspec/specs/\`, so they describe the system as it now is, then move the change folder to the archive.

## Instructions

- Read \`openspec/changes/<change>/verify-report.md\` first. If it reports a failure or any CRITICAL issue, archive nothing and report \`failure\`.
- For each delta spec \`openspec/changes/<change>/specs/<capability>/spec.md\`, update the main spec \`openspec/specs/<capability>/spec.md\`:
  - ADDED: append each requirement, with its scenarios, under the main spec's \`## Requirements\`.
  - MODIFIED: replace the whole requirement block of the same \`### Requirement:\` name, scenarios included.
  - REMOVED: delete the requirement of that name.
  - No main spec yet: create it as \`# <capability> Specification\`, a \`## Purpose\` paragraph taken from the proposal, and \`## Requirements\` holding the added requirements.
  - Every requirement the delta does not name stays exactly as it is.
- Then move the whole folder \`openspec/changes/<change>/\` to \`openspec/changes/archive/<change>/\` (create \`openspec/changes/archive/\` when needed). If that destination already exists, move nothing and report \`failure\`.
- Change nothing outside \`openspec/\`.

${sddResultContract({
  heading: HEADING,
  success: "every delta spec is merged and the change folder is in the archive.",
  warning:
    "everything is merged and moved, but a merge needed judgement: a MODIFIED requirement missing from the main spec was added instead, a REMOVED one was already gone.",
  failure:
    "the verify report does not pass, the archive destination exists, or a delta spec cannot be merged; leave nothing half moved.",
  critical:
    "a merge conflict you could not resolve, a verify report with failures, an archive destination that already exists.",
  warningRisk: "each merge that needed judgement, and how you resolved it.",
  artifacts:
    "every main spec you created or updated, and the archived change's files at their new paths (`openspec/changes/archive/<change>/proposal.md`, …), never the old paths: they no longer exist.",
  next: '"Done: add-dark-mode archived and openspec/specs/theme-settings/spec.md updated; start the next change with `sssf run sdd`."',
})}`,
  title: "Archive the change",
  task: sddTask(HEADING, [
    "Merge the delta specs of `openspec/changes/<name>/specs/` into `openspec/specs/`, then move `openspec/changes/<name>/` to `openspec/changes/archive/<name>/`.",
    "Here `previous_envelope` is the verification report: archive nothing if it did not pass.",
  ]),
};
