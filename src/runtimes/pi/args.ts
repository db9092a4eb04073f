/**
 * The pi argv of one send. Prompts never travel in argv: the user prompt goes on stdin and the system
 * prompt in a file that `--system-prompt` reads (pi reads the value as a file when such a file exists).
 */

import type { ThinkingLevel } from "../runtime.js";

/** sssf's tool names, which are pi's own built-in tool names. */
export const PI_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"] as const;

/** Environment of every pi call: no startup network traffic (version check, rg/fd downloads), no telemetry. */
export const PI_ENV: Readonly<Record<string, string>> = {
  PI_OFFLINE: "1",
  PI_SKIP_VERSION_CHECK: "1",
  PI_TELEMETRY: "0",
};

/**
 * The tool flags for an sssf allowlist: `[]` is `--no-tools` (no `tools` key in the model request);
 * duplicates are dropped. An unknown name is an error naming it and the valid ones. Never throws.
 */
export function piToolArgs(tools: string[]): { ok: true; args: string[] } | { ok: false; error: string } {
  const known: readonly string[] = PI_TOOLS;
  const unknown = tools.filter((tool) => !known.includes(tool));
  if (unknown.length > 0) {
    const names = unknown.map((tool) => `"${tool}"`).join(", ");
    return {
      ok: false,
      error: `pi has no tool ${names}; the tools are ${PI_TOOLS.join(", ")} (tools: [] means none)`,
    };
  }
  if (tools.length === 0) return { ok: true, args: ["--no-tools"] };
  return { ok: true, args: ["--tools", [...new Set(tools)].join(",")] };
}

/** Files and choices one send's argv is built from. */
export interface PiArgsInput {
  sessionFile: string;
  sessionDir: string;
  systemPromptFile: string;
  /** Exact `provider/id`, or null for pi's default model. */
  model: string | null;
  thinking: ThinkingLevel;
  toolArgs: string[];
}

/**
 * argv after the command prefix. `--append-system-prompt ""` stops pi from appending
 * `.pi/APPEND_SYSTEM.md` files; `-nc -ns -np -ne` keep the repo's AGENTS.md/CLAUDE.md, skills, prompt
 * templates and extensions out, so the model sees exactly sssf's system prompt and tool set.
 */
export function piArgs(input: PiArgsInput): string[] {
  return [
    "--print",
    "--mode",
    "json",
    "--offline",
    "--session",
    input.sessionFile,
    "--session-dir",
    input.sessionDir,
    "--system-prompt",
    input.systemPromptFile,
    "--append-system-prompt",
    "",
    "--no-context-files",
    "--no-skills",
    "--no-prompt-templates",
    "--no-extensions",
    "--thinking",
    input.thinking,
    ...(input.model === null ? [] : ["--model", input.model]),
    ...input.toolArgs,
  ];
}
