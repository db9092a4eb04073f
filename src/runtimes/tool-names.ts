/**
 * The tool names sssf knows: the vocabulary of an agent's `tools` allowlist. They are pi's own
 * built-in tool names; every CLI runtime maps each of them to its CLI's tools (claude `read` → `Read`,
 * gemini `bash` → `run_shell_command`, codex and opencode through features and permissions). Leaf
 * module: the config check and the runtimes import the one list from here.
 */

/** Every tool name an agent's `tools` may list, in the order messages and docs show them. */
export const TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"] as const;

/** One of sssf's tool names. */
export type ToolName = (typeof TOOL_NAMES)[number];

/** True when `name` is one of sssf's tool names (exact, lowercase). Never throws. */
export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}
