import { NOTHING_FOUND, type SendHook } from "../../api/send-hook.js";
import { namedInsideRoot, withRealPaths } from "../../boundary/write-boundary-paths.js";

/** The files an agent's tool calls named inside the run root, across the sends of one call. */
export interface NamedPaths {
  readonly hook: SendHook;
  readonly files: ReadonlySet<string>;
}

/**
 * Collects, as a send hook, every file inside `root` that a tool call names (created, edited, moved),
 * so that beside parallel phases a diff gate counts only this agent's own paths
 * (docs/parallel-phases.md). Finds nothing itself.
 */
export function collectNamedPaths(root: string): NamedPaths {
  const files = new Set<string>();
  const roots = withRealPaths([root]);
  return {
    files,
    hook: {
      name: "named_paths",
      open: () => ({
        readsToolCalls: false,
        onToolCall(call) {
          for (const file of namedInsideRoot(call.args, roots)) files.add(file);
        },
        settle: () => NOTHING_FOUND,
      }),
    },
  };
}
