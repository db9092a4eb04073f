/**
 * Tool calls that `codex exec --json` leaves out, read from the thread's rollout file. codex writes
 * every call the model makes into the rollout (`function_call`, `custom_tool_call`, `local_shell_call`,
 * each followed by its `…_output`), but its exec stream shows only the calls that became thread items
 * (`command_execution`, `file_change`, …): a patch codex rejects, a `write_stdin` to a finished
 * process, a call whose arguments do not parse or whose process could not start never appear there.
 * The rollout records those items too (`event_msg` `item_completed`, item id = the call id), which
 * tells the calls apart: every call with an output and no such item is reported from the rollout,
 * marked `source: "session_file"` in its args.
 */

import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { ToolCall } from "../runtime.js";
import { toolCallName, toolResultSnippet } from "../send-loop/tool-call-name.js";
import { unwrapShell } from "./items.js";
import { findRollout } from "./rollout.js";

/** Where the thread's rollout ended before a send: calls after it are the send's own. */
export interface RolloutMark {
  file: string;
  size: number;
}

/** The marker in the args of a call read from the rollout rather than from the exec stream. */
export const SESSION_FILE_SOURCE = "session_file";

/** Thread item types the exec stream turns into `item.*` events (the calls it reports itself). */
const STREAM_ITEM_TYPES = new Set(["CommandExecution", "FileChange", "McpToolCall", "WebSearch"]);

/** The rollout's size before a send of thread `threadId` (null: a new thread, or no file yet). Never throws. */
export function markRollout(codexHome: string, threadId: string | null): RolloutMark | null {
  if (threadId === null) return null;
  try {
    const file = findRollout(codexHome, threadId);
    return file === null ? null : { file, size: statSync(file).size };
  } catch {
    return null;
  }
}

function readFrom(file: string, offset: number): string {
  const size = statSync(file).size;
  if (size <= offset) return "";
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(file, "r");
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString("utf8");
}

interface RolloutCall {
  id: string;
  name: string;
  /** The parsed arguments (an object), or the freeform input as `{input}`. */
  input: Record<string, unknown>;
  startedAt: Date;
  output?: { text: string; success: boolean | undefined; endedAt: Date };
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const text = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);

function parseArguments(raw: unknown): Record<string, unknown> {
  if (typeof raw !== "string") return record(raw);
  try {
    const parsed = JSON.parse(raw) as unknown;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { arguments: parsed };
  } catch {
    return { arguments: raw };
  }
}

/** A call's output as text, and its own success flag where codex gives one (`{content, success}`). */
function outputOf(raw: unknown): { text: string; success: boolean | undefined } {
  if (typeof raw === "string") return { text: raw, success: undefined };
  const fields = record(raw);
  const success = typeof fields.success === "boolean" ? fields.success : undefined;
  const content = fields.content ?? fields.output ?? raw;
  const body = Array.isArray(content)
    ? content.map((part) => text(record(part).text ?? part)).join("\n")
    : text(content);
  return { text: body, success };
}

/** The exit code a shell call's output states, or null. */
function exitCodeOf(output: string): number | null {
  const stated =
    /Process exited with code (-?\d+)/.exec(output) ?? /^Exit code: (-?\d+)/m.exec(output) ?? null;
  if (stated?.[1] !== undefined) return Number(stated[1]);
  try {
    const code = record(record(JSON.parse(output)).metadata).exit_code;
    return typeof code === "number" ? code : null;
  } catch {
    return null;
  }
}

/** codex's tool-level failure messages: `exec_command failed: …`, `patch rejected: …`, `unsupported call: …`. */
const FAILURE =
  /^(?:[\w.-]+ failed\b|failed to\b|unsupported call\b|[\w ]*rejected\b|apply_patch verification failed\b)/i;

const SHELL_TOOLS = new Set(["exec_command", "shell", "shell_command", "container.exec", "local_shell"]);

function shellCommand(input: Record<string, unknown>): string {
  const command = input.cmd ?? input.command;
  if (Array.isArray(command)) return unwrapShell(command.map(String).join(" "));
  return unwrapShell(text(command));
}

/** The files an apply_patch body names, and whether it only adds files. */
function patchFiles(patch: string): { paths: string[]; addsOnly: boolean } {
  const headers = [...patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)];
  return {
    paths: headers.map((match) => (match[2] ?? "").trim()),
    addsOnly: headers.length > 0 && headers.every((match) => match[1] === "Add"),
  };
}

/** The sssf tool, args and success of a call read from the rollout. Never throws. */
export function describeRolloutCall(call: RolloutCall): {
  tool: string;
  args: Record<string, unknown>;
  ok: boolean;
} {
  const output = call.output?.text ?? "";
  const success = call.output?.success;
  const failed = FAILURE.test(output.trim());
  const source = { source: SESSION_FILE_SOURCE };
  if (SHELL_TOOLS.has(call.name)) {
    const code = exitCodeOf(output);
    const ok = success ?? (code !== null ? code === 0 : !failed);
    return { tool: "bash", args: { command: shellCommand(call.input), ...source }, ok };
  }
  if (call.name === "apply_patch") {
    const patch = text(call.input.input ?? call.input.patch ?? call.input.arguments);
    const { paths, addsOnly } = patchFiles(patch);
    const ok = success ?? (/(^|\n)Success\./.test(output) && !failed);
    return { tool: addsOnly ? "write" : "edit", args: { path: paths.join(", "), ...source }, ok };
  }
  return { tool: call.name, args: { ...call.input, ...source }, ok: success ?? !failed };
}

const dateOf = (value: unknown, fallback: Date): Date => {
  const parsed = typeof value === "string" ? new Date(value) : null;
  return parsed !== null && !Number.isNaN(parsed.getTime()) ? parsed : fallback;
};

/**
 * The finished calls of the rollout text `lines` that the exec stream did not report, in order.
 * `streamItems` is how many tool items the stream showed: the rollout's stream-type items beyond
 * that many (the stream was cut short) are reported here too. Never throws.
 */
export function unreportedCalls(lines: string, streamItems: number): ToolCall[] {
  const calls = new Map<string, RolloutCall>();
  const itemIds: string[] = [];
  const now = new Date();
  for (const line of lines.split("\n")) {
    if (!line.includes('"call_id"') && !line.includes('"item_')) continue;
    let entry: { timestamp?: unknown; type?: unknown; payload?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    const payload = record(entry.payload);
    const at = dateOf(entry.timestamp, now);
    const id = text(payload.call_id);
    if (entry.type === "response_item") {
      switch (payload.type) {
        case "function_call":
          calls.set(id, {
            id,
            name: text(payload.name),
            input: parseArguments(payload.arguments),
            startedAt: at,
          });
          break;
        case "custom_tool_call":
          calls.set(id, {
            id,
            name: text(payload.name),
            input: { input: text(payload.input) },
            startedAt: at,
          });
          break;
        case "local_shell_call":
          calls.set(id, {
            id,
            name: "local_shell",
            input: { command: record(payload.action).command },
            startedAt: at,
          });
          break;
        case "function_call_output":
        case "custom_tool_call_output":
        case "local_shell_call_output": {
          const call = calls.get(id);
          if (call !== undefined) call.output = { ...outputOf(payload.output), endedAt: at };
          break;
        }
      }
    } else if (
      entry.type === "event_msg" &&
      (payload.type === "item_completed" || payload.type === "item_started")
    ) {
      const item = record(payload.item);
      const itemId = text(item.id);
      if (STREAM_ITEM_TYPES.has(text(item.type)) && !itemIds.includes(itemId)) itemIds.push(itemId);
    }
  }
  const reported = new Set(itemIds.slice(0, Math.max(0, streamItems)));
  const out: ToolCall[] = [];
  for (const call of calls.values()) {
    if (call.output === undefined || reported.has(call.id)) continue;
    const { tool, args, ok } = describeRolloutCall(call);
    out.push({
      tool,
      name: toolCallName(tool, args),
      args,
      result: toolResultSnippet(call.output.text),
      ok,
      startedAt: call.startedAt,
      endedAt: new Date(Math.max(call.output.endedAt.getTime(), call.startedAt.getTime())),
    });
  }
  return out;
}

/**
 * The calls of this send (the rollout after `before`, all of it for a new thread or a new file) that
 * the exec stream did not report, with the rollout's path; null when there is no rollout. Never throws.
 */
export function sessionFileCalls(
  codexHome: string,
  threadId: string,
  before: RolloutMark | null,
  streamItems: number,
): { file: string; calls: ToolCall[] } | null {
  try {
    const file = findRollout(codexHome, threadId);
    if (file === null) return null;
    const offset = before !== null && before.file === file ? before.size : 0;
    return { file, calls: unreportedCalls(readFrom(file, offset), streamItems) };
  } catch {
    return null;
  }
}
