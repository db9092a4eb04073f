/**
 * sssf's tool names and options → `codex exec` argv. codex has no tool allowlist: its tools are
 * switched by features (`shell_tool`, `view_image`, …), config keys, the sandbox mode and, for
 * apply_patch, the model catalog. See docs/runtimes/codex.md for the table.
 */

/** sssf's tool names (pi's). */
export const SSSF_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"] as const;

/** The error for tool names sssf does not know, or null when all are valid. Never throws. */
export function validateCodexTools(tools: readonly string[]): string | null {
  const unknown = tools.filter((tool) => !(SSSF_TOOLS as readonly string[]).includes(tool));
  if (unknown.length === 0) return null;
  return `unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.map((t) => `"${t}"`).join(", ")} for coding_agent codex (valid: ${SSSF_TOOLS.join(", ")})`;
}

/** Which codex tools one send switches on. */
export interface CodexToolPlan {
  /** exec_command + write_stdin (feature `shell_tool`). */
  shell: boolean;
  /** apply_patch, where the model's catalog entry offers it. */
  applyPatch: boolean;
  /** view_image (feature `view_image`). */
  viewImage: boolean;
  sandbox: "read-only" | "workspace-write";
}

/**
 * Maps sssf tools onto codex's. read/grep/find/ls need the shell (codex reads files through it), in
 * a read-only sandbox unless something may write. edit/write are apply_patch; a model without
 * apply_patch (generic metadata) can only write through the shell, so they switch the shell on.
 * `modelApplyPatch: "unknown"` (codex's default model) is taken as offering it.
 */
export function planCodexTools(
  tools: readonly string[],
  modelApplyPatch: boolean | "unknown",
): CodexToolPlan {
  const has = (name: string) => tools.includes(name);
  const reads = has("read") || has("grep") || has("find") || has("ls");
  const writes = has("edit") || has("write");
  const patchable = modelApplyPatch !== false;
  return {
    shell: has("bash") || reads || (writes && !patchable),
    applyPatch: writes && patchable,
    viewImage: has("read"),
    sandbox: has("bash") || writes ? "workspace-write" : "read-only",
  };
}

/** A TOML string literal for `-c key=value` (JSON's escapes are valid TOML basic-string escapes). */
export const tomlString = (value: string): string => JSON.stringify(value);

/** Everything one `codex exec` invocation needs. */
export interface CodexArgsInput {
  /** argv prefix that runs codex (`["codex"]` or the agent's `command`). */
  command: string[];
  cwd: string;
  model: string;
  effort: string | null;
  plan: CodexToolPlan;
  instructionsFile: string;
  /** A catalog without apply_patch, when it must be switched off. */
  catalogFile: string | null;
  /** The thread to continue (a UUID), or null for a new one. */
  threadId: string | null;
  /** The strict output schema file for `--output-schema`, or null for none. */
  outputSchemaFile?: string | null;
  /** The session's handoff folder, made writable with `--add-dir` (absent: none). */
  contextHandoffDir?: string | undefined;
  /** True when the send runs inside sssf's OS sandbox: codex's own sandbox defers to it (`sandboxArgs`). */
  boxed?: boolean | undefined;
}

/**
 * `--add-dir <folder>` for the session's handoff folder: a writable root of the `workspace-write`
 * sandbox beside the cwd, so apply_patch and the shell may write there (codex rejects a patch outside
 * its writable roots: "patch rejected: writing outside of the project"). A `read-only` sandbox gets
 * none: nothing may write anywhere.
 */
export function workspaceArgs(plan: CodexToolPlan, contextHandoffDir: string | undefined): string[] {
  if (plan.sandbox !== "workspace-write" || contextHandoffDir === undefined || contextHandoffDir === "")
    return [];
  return ["--add-dir", contextHandoffDir];
}

/**
 * codex's sandbox switches. Outside sssf's box: `-s <read-only|workspace-write>` as the tools plan
 * says, plus `--add-dir` for the handoff folder. Inside it: `-s danger-full-access`, codex's sandbox
 * off. codex 0.171 builds its sandbox with bubblewrap, and a bwrap inside sssf's bwrap would need what
 * the box takes away (capabilities, a new user namespace); the box already holds the policy (the
 * working tree and `context_handoff/` writable, git dirs read-only, the network as configured), so
 * every shell call would fail for no gain. `approval_policy="never"` (always passed) keeps codex from
 * asking. See docs/runtimes/codex.md.
 */
export function sandboxArgs(
  plan: CodexToolPlan,
  contextHandoffDir: string | undefined,
  boxed: boolean,
): string[] {
  if (boxed) return ["-s", "danger-full-access"];
  return ["-s", plan.sandbox, ...workspaceArgs(plan, contextHandoffDir)];
}

/** Switches that keep codex from any traffic besides the model endpoint, and from extra tools. */
const FIXED_SWITCHES = [
  ["-c", 'approval_policy="never"'],
  ["-c", 'web_search="disabled"'],
  ["-c", "analytics.enabled=false"],
  ["-c", "feedback.enabled=false"],
  ["-c", "check_for_update_on_startup=false"],
  ["-c", "tools.experimental_request_user_input.enabled=false"],
  ["-c", "tools.update_plan.enabled=false"],
  ["--disable", "plugins"],
  ["--disable", "remote_plugin"],
  ["--disable", "apps"],
  ["--disable", "goals"],
  ["--disable", "multi_agent"],
].flat();

/**
 * `codex exec` argv. exec-level options go before the `resume` subcommand (codex applies them to
 * the resumed thread too; `--output-schema` included, which a thread does not remember); the prompt
 * is `-`, read from stdin.
 */
export function codexArgs(input: CodexArgsInput): string[] {
  const { plan } = input;
  return [
    ...input.command,
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--color",
    "never",
    "-C",
    input.cwd,
    ...sandboxArgs(plan, input.contextHandoffDir, input.boxed === true),
    ...(input.model === "" ? [] : ["-m", input.model]),
    "-c",
    `model_instructions_file=${tomlString(input.instructionsFile)}`,
    ...(input.effort === null ? [] : ["-c", `model_reasoning_effort=${tomlString(input.effort)}`]),
    ...(input.catalogFile === null ? [] : ["-c", `model_catalog_json=${tomlString(input.catalogFile)}`]),
    ...FIXED_SWITCHES,
    ...(plan.shell ? [] : ["--disable", "shell_tool"]),
    ...(plan.viewImage ? [] : ["--disable", "view_image"]),
    ...(input.outputSchemaFile == null ? [] : ["--output-schema", input.outputSchemaFile]),
    ...(input.threadId === null ? [] : ["resume", input.threadId]),
    "-",
  ];
}

/** Environment for every codex call: quiet stderr (no Rust backtraces on a failed turn start). */
export const CODEX_ENV: Record<string, string> = { RUST_BACKTRACE: "0" };
