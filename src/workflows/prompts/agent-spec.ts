import type { ContractFormat } from "../../api/run-api.js";
import type { OutputType } from "../../envelope/output-type.js";
import type { SDD_AGENTS } from "../sdd.js";

/** The roster `sssf init` writes, in order; the built-in workflows name these agents. */
export const DEFAULT_AGENT_NAMES = ["planner", "builder", "scout", "reviewer", "documenter"] as const;
/** One of `DEFAULT_AGENT_NAMES`. */
export type DefaultAgentName = (typeof DEFAULT_AGENT_NAMES)[number];
/** One of the `sdd` workflow's agents (`SDD_AGENTS`), which `sssf init --sdd` adds to the roster. */
export type SddAgentName = (typeof SDD_AGENTS)[number];
/** Every agent sssf ships default prompts for. */
export type PromptAgentName = DefaultAgentName | SddAgentName;

/**
 * One agent sssf ships defaults for: its roster entry (`purpose`, `writes`) and the texts its prompt
 * files are made of. `outputType` and `format` are what the built-in workflows ask it for; its
 * `## Report` is generated from them (`reportSection(outputType, format)`).
 */
export interface DefaultAgentSpec {
  name: PromptAgentName;
  /** One line for the roster's `purpose`. */
  purpose: string;
  /** Repo-relative globs for the roster's `writes` ([] = reports only). */
  writes: readonly string[];
  outputType: OutputType;
  /** The contract the agent answers in: a JSON envelope, or the Markdown result contract. */
  format: ContractFormat;
  /** The whole static `system.md`: Purpose and Instructions. */
  system: string;
  /** The `user.md` heading. */
  title: string;
  /** The `## Task` section's body, between the variables and the generated `## Report`. */
  task: string;
}
