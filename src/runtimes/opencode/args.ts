/**
 * How one sssf send becomes one `opencode run` invocation: the argv, the env switches, the sssf tool
 * names mapped to opencode permissions, thinking levels mapped to opencode model variants, and the
 * per-call agent definition (system prompt file + permissions) passed in OPENCODE_CONFIG_CONTENT.
 */

import path from "node:path";
import type { ThinkingLevel } from "../runtime.js";

/** The agent sssf defines on every call (`--agent sssf`). */
export const OPENCODE_AGENT = "sssf";

/**
 * Set on every call: no self-update, no models.dev refresh, no default plugins, no LSP server
 * downloads, no session sharing; and no Claude Code files (~/.claude/CLAUDE.md, .claude skills) mixed
 * into sssf's prompt.
 */
export const OPENCODE_ENV: Readonly<Record<string, string>> = {
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_SHARE: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
};

/**
 * sssf tool name → the opencode permissions that offer it. opencode checks `edit`, `write` and
 * `apply_patch` against one permission (`edit`), so sssf `write` and `edit` cannot be split. opencode
 * 1.18 has no `ls` tool; `glob` lists files, so `ls` and `find` both map to it.
 */
export const OPENCODE_TOOL_PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
  read: ["read"],
  bash: ["bash"],
  edit: ["edit"],
  write: ["edit"],
  grep: ["grep"],
  find: ["glob"],
  ls: ["glob"],
};

/** A rule as opencode's config writes it: an action, or patterns → actions. */
export type OpencodeRule = "allow" | "deny" | Record<string, "allow" | "deny">;

/** opencode permission rules for sssf's agent, in order: deny everything, then the allowed tools. */
export type OpencodePermission = Record<string, OpencodeRule>;

/**
 * The rule for an allowed tool: `allow`, plus the user's own deny patterns for it (e.g. `bash:
 * {"git push*": "deny"}`), which stay in force. Their `ask` rules are dropped: `opencode run` can only
 * auto-reject a question, which would break a tool sssf was told to offer.
 */
function allowRule(own: unknown): OpencodeRule {
  if (typeof own !== "object" || own === null || Array.isArray(own)) return "allow";
  const rule: Record<string, "allow" | "deny"> = { "*": "allow" };
  for (const [pattern, action] of Object.entries(own))
    if (action === "deny" && pattern !== "*") rule[pattern] = "deny";
  return Object.keys(rule).length === 1 ? "allow" : rule;
}

/**
 * Checks `tools` and returns the permission rules; `[]` denies every tool, so opencode offers none.
 * `userPermission` is the `permission` of the user's opencode config (see `allowRule`). Never throws:
 * an unknown name is `{ ok: false }` naming it and the valid ones.
 */
export function validateOpencodeTools(
  tools: readonly string[],
  userPermission: Record<string, unknown> = {},
): { ok: true; permission: OpencodePermission } | { ok: false; error: string } {
  const unknown = tools.filter((tool) => !Object.hasOwn(OPENCODE_TOOL_PERMISSIONS, tool));
  if (unknown.length > 0) {
    const valid = Object.keys(OPENCODE_TOOL_PERMISSIONS).join(", ");
    const names = unknown.map((tool) => `"${tool}"`).join(", ");
    return { ok: false, error: `unknown tool ${names} for opencode; valid tools: ${valid}` };
  }
  const permission: OpencodePermission = { "*": "deny" };
  for (const tool of tools)
    for (const name of OPENCODE_TOOL_PERMISSIONS[tool] ?? [])
      permission[name] = allowRule(userPermission[name]);
  return { ok: true, permission };
}

/**
 * `permission` plus the `external_directory` rule that opens the session's handoff folder: opencode
 * asks `external_directory` for every path outside its project (the cwd's git worktree, else the
 * cwd), with the pattern `<parent folder>/*`; sssf's agent denies it everywhere except under
 * `contextHandoffDir`, so the allowed file tools may write there and nowhere else outside the
 * project. Without a handoff folder the permission is returned unchanged (`"*": "deny"` covers it).
 */
export function withHandoffDirectory(
  permission: OpencodePermission,
  contextHandoffDir: string | undefined,
): OpencodePermission {
  if (contextHandoffDir === undefined || contextHandoffDir === "") return permission;
  const folder = path.resolve(contextHandoffDir);
  return { ...permission, external_directory: { "*": "deny", [`${folder}/*`]: "allow" } };
}

/**
 * The `--variant` for a thinking level: opencode's variants are named after reasoning efforts
 * (`none`, `minimal`, `low`, `medium`, `high`, `xhigh`, provider-specific ones like `max`). A variant the
 * model does not define is ignored by opencode, which then uses the model's default.
 */
export function opencodeVariant(thinking: ThinkingLevel): string {
  return thinking === "off" ? "none" : thinking;
}

/**
 * The OPENCODE_CONFIG_CONTENT that defines the `sssf` agent: its prompt is read from
 * `systemPromptFile` by opencode's `{file:…}` substitution (so the prompt never rides in argv or env,
 * and `{env:…}` in it stays literal). `base` is a caller-set OPENCODE_CONFIG_CONTENT to keep.
 */
export function opencodeConfigContent(
  systemPromptFile: string,
  permission: OpencodePermission,
  base: Record<string, unknown> = {},
): string {
  const agents = typeof base.agent === "object" && base.agent !== null ? base.agent : {};
  const agent = {
    mode: "primary",
    description: "sssf agent: system prompt and tools set by sssf on every call",
    prompt: `{file:${systemPromptFile}}`,
    permission,
  };
  return JSON.stringify({ ...base, agent: { ...agents, [OPENCODE_AGENT]: agent } });
}

/** What one invocation needs to know. */
export interface OpencodeArgsInput {
  /** `provider/model`, or null for opencode's default. */
  model: string | null;
  thinking: ThinkingLevel;
  /** opencode's session id to continue, or null to create one. */
  session: string | null;
  /** Session title (given so opencode makes no title-generation request). */
  title: string;
  cwd: string;
}

/** argv after the binary; the prompt goes on stdin. `--flag=value` so no value is read as a flag. */
export function opencodeArgs(input: OpencodeArgsInput): string[] {
  const args = [
    "run",
    "--format=json",
    `--agent=${OPENCODE_AGENT}`,
    `--title=${input.title}`,
    `--dir=${input.cwd}`,
    `--variant=${opencodeVariant(input.thinking)}`,
  ];
  if (input.model !== null) args.push(`--model=${input.model}`);
  if (input.session !== null) args.push(`--session=${input.session}`);
  return args;
}
