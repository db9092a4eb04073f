/**
 * The default prompt texts of the roster `sssf init` writes (planner, builder, scout, reviewer,
 * documenter; with `--sdd` the eight sdd agents too): the contract the built-in workflows rely on.
 * `sssf init` and `sssf demo` write these.
 */
import { GENERATED_REPORT_MARK } from "../../envelope/report-placement.js";
import { reportSection } from "../../envelope/report-section.js";
import {
  DEFAULT_AGENT_NAMES,
  type DefaultAgentName,
  type DefaultAgentSpec,
  type PromptAgentName,
} from "./agent-spec.js";
import { builderAgent } from "./builder.js";
import { documenterAgent } from "./documenter.js";
import { plannerAgent } from "./planner.js";
import { reviewerAgent } from "./reviewer.js";
import { scoutAgent } from "./scout.js";
import { SDD_AGENT_SPECS } from "./sdd-agents.js";

export {
  DEFAULT_AGENT_NAMES,
  type DefaultAgentName,
  type DefaultAgentSpec,
  type PromptAgentName,
  type SddAgentName,
} from "./agent-spec.js";
export { isSddAgentName, sddAgents } from "./sdd-agents.js";

const SPECS: Record<PromptAgentName, DefaultAgentSpec> = {
  planner: plannerAgent,
  builder: builderAgent,
  scout: scoutAgent,
  reviewer: reviewerAgent,
  documenter: documenterAgent,
  ...SDD_AGENT_SPECS,
};

/** The default roster in `DEFAULT_AGENT_NAMES` order. Never throws. */
export function defaultAgents(): DefaultAgentSpec[] {
  return DEFAULT_AGENT_NAMES.map((name) => SPECS[name]);
}

/** True for the names `defaultPrompts` knows. */
export function isDefaultAgentName(name: string): name is DefaultAgentName {
  return (DEFAULT_AGENT_NAMES as readonly string[]).includes(name);
}

/**
 * `user.md` of a default agent: the heading, one `###` per placeholder (`prompt`, `previous_envelope`,
 * `context_handoff_dir`), the task, and the `## Report` section generated from its output type in its
 * format (JSON, or the Markdown result contract), marked as generated: each call replaces it with the
 * contract of its own output type, so the file stays right whatever type a workflow asks for.
 */
function userPrompt(spec: DefaultAgentSpec): string {
  return [
    `# ${spec.title}`,
    "",
    "## Variables",
    "",
    "### prompt",
    "",
    "{{prompt}}",
    "",
    "### previous_envelope",
    "",
    "{{previous_envelope}}",
    "",
    "### context_handoff_dir",
    "",
    "{{context_handoff_dir}}",
    "",
    "## Task",
    "",
    spec.task,
    "",
    GENERATED_REPORT_MARK,
    reportSection(spec.outputType, spec.format),
    "",
  ].join("\n");
}

/**
 * The `system.md` (static Purpose and Instructions) and `user.md` (variables, task, generated
 * `## Report`) texts of a default agent or an sdd agent. Deterministic; never throws for a
 * `PromptAgentName`.
 *
 * @example writeFileSync("adws/adw_data/prompt_engineering/planner/user.md", defaultPrompts("planner").user);
 */
export function defaultPrompts(agent: PromptAgentName): { system: string; user: string } {
  const spec = SPECS[agent];
  return { system: spec.system, user: userPrompt(spec) };
}
