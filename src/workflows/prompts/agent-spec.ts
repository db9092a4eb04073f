import type { OutputType } from "../../envelope/output-type.js";

/** The roster `sssf init` writes, in order; the built-in workflows name these agents. */
export const DEFAULT_AGENT_NAMES = ["planner", "builder", "scout", "reviewer", "documenter"] as const;
/** One of `DEFAULT_AGENT_NAMES`. */
export type DefaultAgentName = (typeof DEFAULT_AGENT_NAMES)[number];

/**
 * One default agent: its roster entry (`purpose`, `writes`) and the texts its prompt files are made
 * of. `outputType` is what the built-in workflows ask it for; its `## Report` is generated from it.
 */
export interface DefaultAgentSpec {
  name: DefaultAgentName;
  /** One line for the roster's `purpose`. */
  purpose: string;
  /** Repo-relative globs for the roster's `writes` ([] = reports only). */
  writes: readonly string[];
  outputType: OutputType;
  /** The whole static `system.md`: Purpose and Instructions. */
  system: string;
  /** The `user.md` heading. */
  title: string;
  /** The `## Task` section's body, between the variables and the generated `## Report`. */
  task: string;
}
