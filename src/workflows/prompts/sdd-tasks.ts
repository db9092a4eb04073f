import { MarkdownResult } from "../../envelope/markdown-result-type.js";
import type { DefaultAgentSpec } from "./agent-spec.js";
import { sddResultContract, sddTask } from "./sdd-prompt-text.js";

const HEADING = "Tasks Created";

/** Breaks the change into the ordered tasks.md checklist the apply agent works through. */
export const sddTasksAgent: DefaultAgentSpec = {
  name: "sdd-tasks",
  purpose: "Breaks the change into an ordered implementation checklist in the change's tasks.md",
  writes: ["openspec/changes/*/tasks.md"],
  outputType: MarkdownResult,
  format: "markdown",
  system: `# SDD Tasks

## Purpose

Break a specified and designed change into an ordered checklist of small implementation tasks that can be done one by one, so that doing all of them implements every scenario of the specs.

## Instructions

- Read \`openspec/changes/<change>/proposal.md\`, every file under \`specs/\` and \`design.md\`.
- Write \`openspec/changes/<change>/tasks.md\`: groups as \`## 1. <Group>\` (foundations first, then the core behaviour, integration, tests, documentation), tasks as \`- [ ] 1.1 <imperative task>\`, numbered within their group.
- Each task is small enough for one sitting, names the files it touches and says when it is done. A task that implements or tests a scenario names it: \`(scenario: Theme persists across reloads)\`.
- Every scenario in the specs has a task that implements it and a task that tests it; every row of the design's File Changes appears in some task.
- Order by dependency: no task needs a later one.
- The last group verifies: run the test suite, and the lint and typecheck commands the repository has.
- Every box stays unticked (\`- [ ]\`): sdd-apply ticks them.
- Write only \`tasks.md\`.

${sddResultContract({
  heading: HEADING,
  success: "tasks.md covers every scenario and every file change, in dependency order.",
  warning:
    "tasks.md is written, but the specs and the design did not fully fit: a scenario without a clear place, a file change no requirement needs.",
  failure:
    "the specs or the design are missing, or contradict each other so that no order of tasks implements both.",
  critical:
    "the specs and the design contradict each other, or a scenario cannot be implemented with the design.",
  warningRisk:
    "an inconsistency you resolved one way, a task much larger than the others, a scenario only testable by hand.",
  artifacts: "`openspec/changes/<change>/tasks.md`.",
  next: '"Ready for implementation (sdd-apply): 4 groups, 12 tasks in tasks.md."',
})}`,
  title: "Plan the tasks",
  task: sddTask(HEADING, [
    "Here `previous_envelope` holds two reports, `spec` and `design`, written in parallel: read both, and the files they list.",
    "Write `openspec/changes/<name>/tasks.md` as a numbered checklist (`- [ ] 1.1 …`), every box unticked.",
    "Say in the Summary how many groups and tasks you wrote.",
  ]),
};
