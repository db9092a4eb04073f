/**
 * The claude argv and environment of one send, and the checks on an agent's settings that can be made
 * without spawning anything: tool names, thinking level, model name. Prompts never travel in argv: the
 * user prompt goes on stdin, the system prompt in a file read by `--system-prompt-file`.
 */

import type { SendErrorKind, ThinkingLevel } from "../runtime.js";

/** The npm package that provides `claude`. */
export const CLAUDE_PACKAGE = "@anthropic-ai/claude-code";

/** The claude version this runtime was built and tested against. */
export const CLAUDE_TESTED_VERSION = "2.1.332";

/** The agent's `command` (an argv prefix), else `claude` from PATH. */
export function claudeCommand(command: string[] | undefined): string[] {
  return command !== undefined && command.length > 0 ? command : ["claude"];
}

/** sssf tool names and the claude built-in tool each one maps to (claude has no `LS` in 2.1.332). */
export const CLAUDE_TOOL_MAP: Readonly<Record<string, string>> = {
  read: "Read",
  bash: "Bash",
  edit: "Edit",
  write: "Write",
  grep: "Grep",
  find: "Glob",
  ls: "Glob",
};

/** The sssf name shown for a claude tool (`Glob` shows as `find`); other tools keep claude's name. */
export function sssfToolName(claudeTool: string): string {
  if (claudeTool === "Glob") return "find";
  const entry = Object.entries(CLAUDE_TOOL_MAP).find(([, native]) => native === claudeTool);
  return entry?.[0] ?? claudeTool;
}

/**
 * How each thinking level is passed: `MAX_THINKING_TOKENS` sets the budget of models with budgeted
 * thinking (0 turns thinking off wherever the model allows it), `--effort` drives models with adaptive
 * thinking, and models that always think get the lowest effort for `off`.
 */
export const CLAUDE_THINKING: Readonly<Record<ThinkingLevel, { budget: number; effort: string }>> = {
  off: { budget: 0, effort: "low" },
  minimal: { budget: 1024, effort: "low" },
  low: { budget: 4096, effort: "low" },
  medium: { budget: 10_000, effort: "medium" },
  high: { budget: 20_000, effort: "high" },
  xhigh: { budget: 31_999, effort: "xhigh" },
};

/** Model aliases claude 2.1.332 resolves itself (next to full ids such as `claude-sonnet-4-6`). */
export const CLAUDE_MODEL_ALIASES: readonly string[] = [
  "default",
  "sonnet",
  "opus",
  "haiku",
  "fable",
  "best",
  "opusplan",
  "sonnet[1m]",
  "opus[1m]",
  "fable[1m]",
];

/**
 * Environment of every claude call: no telemetry, error reports, auto-update or other non-essential
 * traffic; no CLAUDE.md files and no auto-memory, so the model sees sssf's prompts and nothing carried
 * over from other runs (an agent env `CLAUDE_CODE_DISABLE_CLAUDE_MDS: ""` brings CLAUDE.md back). The
 * model endpoint itself comes from the agent's env (ANTHROPIC_BASE_URL...).
 */
export const CLAUDE_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_CLAUDE_MDS: "1",
  CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1",
};

/** Whitespace or control characters anywhere, or a leading `-` (it would read as a flag). */
const NOT_A_MODEL_NAME = /[\s\u0000-\u001f\u007f]|^-/;

/** A setting claude cannot run with, and the send error it stands for. */
export interface ClaudeSettingProblem {
  kind: SendErrorKind;
  message: string;
}

/**
 * What can be wrong with an agent's `model` and `tools` before claude runs. claude sends any model
 * name to the endpoint, so only names that cannot be model names (whitespace or control characters
 * anywhere, a leading `-`) are `model_unknown` here; a name the endpoint does not
 * serve is reported from the stream. Never throws.
 */
export function validateClaudeCodeSettings(settings: {
  model: string;
  tools: readonly string[];
}): ClaudeSettingProblem[] {
  const problems: ClaudeSettingProblem[] = [];
  const unknown = settings.tools.filter((tool) => !Object.hasOwn(CLAUDE_TOOL_MAP, tool));
  if (unknown.length > 0) {
    const names = unknown.map((tool) => `"${tool}"`).join(", ");
    const valid = Object.keys(CLAUDE_TOOL_MAP).join(", ");
    problems.push({
      kind: "spawn_failed",
      message: `claude_code has no tool ${names}; the tools are ${valid} (tools: [] means none)`,
    });
  }
  const model = settings.model;
  if (NOT_A_MODEL_NAME.test(model)) {
    problems.push({
      kind: "model_unknown",
      message: `claude_code: ${JSON.stringify(model)} is not a model name; use an alias (${CLAUDE_MODEL_ALIASES.join(", ")}), a full id such as claude-sonnet-4-6 that your endpoint serves, or "" for claude's default`,
    });
  }
  return problems;
}

/** What one send's argv is built from. */
export interface ClaudeArgsInput {
  /** The conversation's UUID. */
  uuid: string;
  /** `--resume` (the transcript exists) or `--session-id` (a new conversation). */
  resume: boolean;
  /** "" for claude's default model. */
  model: string;
  thinking: ThinkingLevel;
  /** sssf tool names, already validated. */
  tools: readonly string[];
  systemPromptFile: string;
  /** `--json-schema` value (see `claudeSchemaArg`), or null for none. */
  jsonSchema?: string | null;
  /** The session's handoff folder, opened with `--add-dir` (absent: none). */
  contextHandoffDir?: string | undefined;
  /** The send runs inside sssf's box: claude's own sandbox is switched off. */
  boxed?: boolean | undefined;
  /** `--max-budget-usd`: what the send may still spend (absent: no cap). */
  maxBudgetUsd?: number | undefined;
}

/**
 * `--max-budget-usd=<amount>` for what a send may still spend, rounded up to a millionth of a dollar
 * (claude reads 0 as "no cap", so a tiny remainder must not round to it); nothing without a budget.
 */
export function budgetArgs(maxBudgetUsd: number | undefined): string[] {
  if (maxBudgetUsd === undefined || !Number.isFinite(maxBudgetUsd) || maxBudgetUsd <= 0) return [];
  const amount = Math.max(Math.ceil(maxBudgetUsd * 1_000_000) / 1_000_000, 0.000001);
  return [`--max-budget-usd=${amount}`];
}

/**
 * The `--settings` of every call: claude's file tools (Write, Edit, NotebookEdit) refuse any path
 * outside the working directories (the cwd and `--add-dir` folders), whatever the allow rules say. An
 * unscoped `Write` allow rule would otherwise let them write anywhere. Shell commands are not limited.
 */
export const CLAUDE_SETTINGS = JSON.stringify({
  permissions: { blockWritesOutsideWorkingDirectories: true },
});

/**
 * The same inside sssf's box, with claude's own sandbox off: it would start a nested bubblewrap, which
 * the box (no capabilities, its own pid namespace) refuses, and the box already holds its writes.
 */
export const CLAUDE_BOXED_SETTINGS = JSON.stringify({
  permissions: { blockWritesOutsideWorkingDirectories: true },
  sandbox: { enabled: false },
});

/** `--add-dir=<folder>` for the session's handoff folder: a working directory, so writes there pass. */
export function workspaceArgs(contextHandoffDir: string | undefined): string[] {
  return contextHandoffDir === undefined || contextHandoffDir === ""
    ? []
    : [`--add-dir=${contextHandoffDir}`];
}

/**
 * argv after the command prefix. Every flag uses the `--flag=value` form, so variadic flags
 * (`--tools`, `--allowedTools`) cannot swallow anything. `--system-prompt-snapshot=off` makes claude
 * send this call's system prompt instead of the one recorded on the first call; `--strict-mcp-config`
 * keeps MCP servers from the user's config out of the tool set; `dontAsk` runs the allowed tools and
 * denies anything else without prompting; `--settings` (`CLAUDE_SETTINGS`) keeps the file tools'
 * writes inside the working directories, of which `--add-dir` makes the handoff folder one.
 * `--json-schema` (inline JSON: claude reads no schema file) adds claude's StructuredOutput tool, even
 * with `--tools=`. `--max-budget-usd` caps what claude itself spends in this send (the engine's
 * budgets stay the first line of defence).
 */
export function claudeArgs(input: ClaudeArgsInput): string[] {
  const native = [...new Set(input.tools.map((tool) => CLAUDE_TOOL_MAP[tool] ?? tool))];
  const effort = CLAUDE_THINKING[input.thinking].effort;
  return [
    "-p",
    "--output-format=stream-json",
    "--verbose",
    input.resume ? `--resume=${input.uuid}` : `--session-id=${input.uuid}`,
    ...(input.model === "" ? [] : [`--model=${input.model}`]),
    `--system-prompt-file=${input.systemPromptFile}`,
    "--system-prompt-snapshot=off",
    `--tools=${native.join(",")}`,
    ...(native.length === 0 ? [] : [`--allowedTools=${native.join(",")}`]),
    "--permission-mode=dontAsk",
    `--settings=${input.boxed ? CLAUDE_BOXED_SETTINGS : CLAUDE_SETTINGS}`,
    ...workspaceArgs(input.contextHandoffDir),
    "--strict-mcp-config",
    `--effort=${effort}`,
    ...(input.jsonSchema == null ? [] : [`--json-schema=${input.jsonSchema}`]),
    ...budgetArgs(input.maxBudgetUsd),
  ];
}

/** The environment of one send: the traffic switches and the thinking budget. */
export function claudeEnv(thinking: ThinkingLevel): Record<string, string> {
  return { ...CLAUDE_ENV, MAX_THINKING_TOKENS: String(CLAUDE_THINKING[thinking].budget) };
}
