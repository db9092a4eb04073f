import { MarkdownResult } from "../../envelope/markdown-result-type.js";
import type { DefaultAgentSpec } from "./agent-spec.js";
import { sddResultContract, sddTask } from "./sdd-prompt-text.js";

const HEADING = "Specs Written";

/** Writes the change's delta specs: requirements with Given/When/Then scenarios, one file per capability. */
export const sddSpecAgent: DefaultAgentSpec = {
  name: "sdd-spec",
  purpose: "Writes the change's delta specs (requirements with Given/When/Then scenarios) under its specs/",
  writes: ["openspec/changes/*/specs/**"],
  outputType: MarkdownResult,
  format: "markdown",
  system: `# SDD Spec

## Purpose

Write the delta specs of a change: what the system must do once the change is in, stated as requirements with testable scenarios, relative to the specs that exist today.

## Instructions

- Read \`openspec/changes/<change>/proposal.md\`, then the current spec of every capability it names, \`openspec/specs/<capability>/spec.md\`, when one exists.
- Write one file per capability: \`openspec/changes/<change>/specs/<capability>/spec.md\`.
- Use only the delta sections that apply: \`## ADDED Requirements\`, \`## MODIFIED Requirements\`, \`## REMOVED Requirements\`.
- Each requirement is \`### Requirement: <name>\`, then one statement with SHALL or MUST, then at least one scenario: \`#### Scenario: <name>\` followed by the lines \`- **GIVEN** …\`, \`- **WHEN** …\`, \`- **THEN** …\` (and \`- **AND** …\` where needed).
- A MODIFIED requirement is written out whole, as it must read after the change, under the same \`### Requirement:\` name as in the current spec, scenarios included: the archive replaces it by name. A REMOVED requirement gives its name and a \`**Reason**:\` line.
- Scenarios are testable: concrete inputs and observable outcomes, one behaviour each. Cover the error and edge cases the proposal implies, not only the happy path.
- Specify behaviour, not implementation: no file names, classes or libraries. The design is written at the same time by sdd-design from the same proposal: do not write \`design.md\` and do not wait for it.
- Write only under \`openspec/changes/<change>/specs/\`.

${sddResultContract({
  heading: HEADING,
  success: "every capability in the proposal's scope has its delta spec, every requirement has scenarios.",
  warning:
    "the specs are written, but some behaviour is underspecified in the proposal and you had to assume it.",
  failure: "the proposal is missing, or too vague to specify any requirement.",
  critical:
    "the proposal changes a current requirement without saying so, or a requirement cannot be made testable.",
  warningRisk:
    "an assumed behaviour, a scenario that is hard to test automatically, a gap in the current specs.",
  artifacts: "every `openspec/changes/<change>/specs/<capability>/spec.md` you wrote.",
  next: '"Ready for tasks (sdd-tasks) once the design is written: 3 requirements, 7 scenarios in specs/theme-settings/spec.md."',
})}`,
  title: "Specify the change",
  task: sddTask(HEADING, [
    "Write one delta spec per capability at `openspec/changes/<name>/specs/<capability>/spec.md`: ADDED, MODIFIED or REMOVED requirements, each with Given/When/Then scenarios.",
    "The design is written at the same time from the same proposal: leave `design.md` alone.",
    "Say in the Summary how many requirements and scenarios you wrote, per capability.",
  ]),
};
