/**
 * How sssf's tool allowlist becomes gemini-cli switches: a policy file (`--policy`) that denies every
 * tool except the mapped ones, so only those are even declared to the model, and the approval mode
 * that lets the allowed write and shell tools run without a confirmation nobody could give.
 */

/** sssf tool name → gemini-cli 0.61.0 tool name. */
export const GEMINI_TOOL_NAMES: Readonly<Record<string, string>> = {
  read: "read_file",
  bash: "run_shell_command",
  edit: "replace",
  write: "write_file",
  grep: "grep_search",
  find: "glob",
  ls: "list_directory",
};

const SSSF_NAME_OF: Record<string, string> = Object.fromEntries(
  Object.entries(GEMINI_TOOL_NAMES).map(([sssf, gemini]) => [gemini, sssf]),
);

/** The sssf name of a gemini tool (`run_shell_command` → `bash`); other names pass through. */
export function sssfToolName(geminiTool: string): string {
  return SSSF_NAME_OF[geminiTool] ?? geminiTool;
}

/** gemini-cli's `--approval-mode` values sssf uses. */
export type GeminiApprovalMode = "default" | "auto_edit" | "yolo";

/**
 * The approval mode a tool set needs: `yolo` when `bash` is allowed (otherwise the CLI's shell
 * heuristics turn "dangerous" commands into a confirmation, i.e. a denial in headless mode),
 * `auto_edit` when `write` or `edit` is, else `default`. The policy file still limits the tools.
 */
export function approvalModeFor(tools: readonly string[]): GeminiApprovalMode {
  if (tools.includes("bash")) return "yolo";
  if (tools.includes("write") || tools.includes("edit")) return "auto_edit";
  return "default";
}

/** The tools of `tools` that gemini does not know, in order. Never throws. */
export function unknownGeminiTools(tools: readonly string[]): string[] {
  return tools.filter((tool) => !Object.hasOwn(GEMINI_TOOL_NAMES, tool));
}

/** A one-line error for unknown tool names, or null when every name maps. Never throws. */
export function validateGeminiTools(tools: readonly string[]): string | null {
  const unknown = unknownGeminiTools(tools);
  if (unknown.length === 0) return null;
  const valid = Object.keys(GEMINI_TOOL_NAMES).join(", ");
  return `unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.map((t) => `"${t}"`).join(", ")} for the gemini runtime; valid tools: ${valid}`;
}

/** Priorities inside the user tier (4.x): above every settings-derived rule, below admin policies. */
const DENY_PRIORITY = 990;
const ALLOW_PRIORITY = 999;

/**
 * The TOML policy for `--policy`: deny every tool (built-in, MCP, subagent), then allow exactly the
 * mapped tools. A globally denied tool is not declared to the model at all, so `[]` offers none.
 * `--policy` replaces the user's `~/.gemini/policies` for the call; admin policies still win.
 * Assumes `validateGeminiTools(tools)` returned null.
 */
export function geminiPolicyToml(tools: readonly string[]): string {
  const lines = [
    "# Written by sssf for one gemini call: only the agent's allowlisted tools exist.",
    "[[rule]]",
    'toolName = "*"',
    'decision = "deny"',
    `priority = ${DENY_PRIORITY}`,
    'denyMessage = "This tool is not in the agent\'s sssf tool allowlist."',
  ];
  const allowed = [...new Set(tools.map((tool) => GEMINI_TOOL_NAMES[tool]).filter((t) => t !== undefined))];
  if (allowed.length > 0) {
    lines.push(
      "",
      "[[rule]]",
      `toolName = [${allowed.map((tool) => JSON.stringify(tool)).join(", ")}]`,
      'decision = "allow"',
      `priority = ${ALLOW_PRIORITY}`,
      // Shell redirection would otherwise need a confirmation, which headless mode turns into a denial.
      "allowRedirection = true",
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Session flags: `--session-id` creates a session, `--resume` continues one (gemini has no create-or-continue). */
export function sessionArgs(uuid: string, resume: boolean): string[] {
  return resume ? ["--resume", uuid] : ["--session-id", uuid];
}

/**
 * `--include-directories <dir>` for the session's handoff folder, so gemini's file tools may write
 * there although it lies outside the cwd (gemini refuses any path outside its workspace: "Path not in
 * workspace"). Nothing else joins the workspace; without a handoff folder there is no flag.
 */
export function workspaceArgs(contextHandoffDir: string | undefined): string[] {
  return contextHandoffDir === undefined || contextHandoffDir === ""
    ? []
    : ["--include-directories", contextHandoffDir];
}
