/**
 * The `exec` runtime: runs any user-given command that speaks `sssf-exec/1` (see docs/exec-protocol.md
 * and ./exec-protocol.ts). One JSON request on stdin; tool calls, usage, logs and a final result as
 * JSON lines on stdout.
 */

import { mkdirSync } from "node:fs";
import { findExecutable } from "../../util/find-executable.js";
import { formatDuration } from "../../util/format-duration.js";
import {
  type AgentSendObserver,
  type AgentSendRequest,
  type AgentSendResult,
  addUsage,
  emptyUsage,
  type RecordedSend,
  type Runtime,
  type RuntimeCheck,
  type RuntimeDoctorRequest,
  type SendErrorKind,
  type ToolCall,
} from "../runtime.js";
import { type SpawnAgentOutcome, spawnAgent } from "../send-loop/spawn-agent.js";
import { toolCallName, toolResultSnippet } from "../send-loop/tool-call-name.js";
import {
  EXEC_PROTOCOL,
  type ExecRequest,
  type ExecResultLine,
  type ExecToolCallLine,
  parseExecLine,
} from "./protocol.js";

// The last stamp parsed: an agent stamps many lines within one millisecond, each parsed again otherwise.
let lastStamp = "";
let lastStampMs = Number.NaN;

function parseTime(value: string | undefined): Date | null {
  if (value === undefined) return null;
  if (value !== lastStamp) {
    lastStampMs = new Date(value).getTime();
    lastStamp = value;
  }
  // A new Date each time: the caller owns (and may change) what it gets.
  return Number.isNaN(lastStampMs) ? null : new Date(lastStampMs);
}

/** Normalizes a wire tool call; missing times are derived from the arrival time and duration. */
export function toToolCall(line: ExecToolCallLine, arrivedAt: Date): ToolCall {
  const startedAt = parseTime(line.started_at);
  // An instant call stamps both ends alike: parsed once.
  const sameEnd = startedAt !== null && line.ended_at === line.started_at;
  const endedAt = sameEnd
    ? startedAt
    : (parseTime(line.ended_at) ??
      (startedAt === null ? arrivedAt : new Date(startedAt.getTime() + line.duration_ms)));
  return {
    tool: line.tool,
    name: line.name ?? toolCallName(line.tool, line.args),
    args: line.args,
    result: toolResultSnippet(line.result),
    ok: line.ok,
    startedAt: startedAt ?? new Date(endedAt.getTime() - line.duration_ms),
    endedAt,
  };
}

const withStderr = (message: string, stderrTail: string): string => {
  const tail = stderrTail.trim();
  return tail === "" ? message : `${message}; stderr: ${tail}`;
};

/** The failure an outcome stands for, or null when the call completed. */
function failureOf(
  request: AgentSendRequest,
  outcome: SpawnAgentOutcome,
  result: ExecResultLine | null,
): { kind: SendErrorKind; message: string } | null {
  const who = `agent ${request.agent}`;
  if (outcome.spawnError !== null) return { kind: "spawn_failed", message: `${who}: ${outcome.spawnError}` };
  if (outcome.aborted) return { kind: "aborted", message: `${who} was aborted; killed its process group` };
  if (outcome.timedOut === "idle") {
    const quiet = formatDuration(request.timeouts.idleMs);
    const message = `${who} produced no output for ${quiet} (idle timeout); killed its process group`;
    return { kind: "idle_timeout", message: withStderr(message, outcome.stderrTail) };
  }
  if (outcome.timedOut === "wall") {
    const limit = formatDuration(request.timeouts.wallMs);
    const message = `${who} ran longer than ${limit} (wall timeout); killed its process group`;
    return { kind: "wall_timeout", message: withStderr(message, outcome.stderrTail) };
  }
  if (result?.error !== undefined) {
    const message = `${who} reported an error: ${result.error}`;
    return { kind: result.error_kind ?? "agent_error", message: withStderr(message, outcome.stderrTail) };
  }
  if (outcome.exitCode !== 0) {
    const how =
      outcome.exitCode === null ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
    return { kind: "exit_nonzero", message: withStderr(`${who}: command ${how}`, outcome.stderrTail) };
  }
  if (result === null) {
    const message = `${who}: command exited 0 without a {"type":"result"} line (${EXEC_PROTOCOL})`;
    return { kind: "no_result", message: withStderr(message, outcome.stderrTail) };
  }
  return null;
}

async function sendExec(request: AgentSendRequest, observer: AgentSendObserver): Promise<AgentSendResult> {
  const usage = emptyUsage();
  let contextTokens: number | null = null;
  const command = request.command ?? [];
  if (command.length === 0) {
    const error = `agent ${request.agent} uses coding_agent: exec but has no \`command\`; set command: [program, ...args] to a program speaking ${EXEC_PROTOCOL}`;
    return { ok: false, text: "", usage, contextTokens, errorKind: "spawn_failed", error, exitCode: null };
  }
  try {
    mkdirSync(request.sessionDir, { recursive: true });
  } catch {
    // The agent reports its own error if it needs the folder.
  }
  const stdin: ExecRequest = {
    protocol: EXEC_PROTOCOL,
    adw_id: request.adwId,
    agent: request.agent,
    session_id: request.sessionId,
    resume: request.resume,
    session_dir: request.sessionDir,
    model: request.model,
    thinking: request.thinking,
    tools: request.tools,
    system_prompt: request.systemPrompt,
    prompt: request.prompt,
    cwd: request.cwd,
  };

  let result: ExecResultLine | null = null;
  const onLine = (line: string) => {
    const parsed = parseExecLine(line);
    if (parsed === null) return;
    if (parsed.type === "tool_call") observer.onToolCall?.(toToolCall(parsed, new Date()));
    else if (parsed.type === "tool_start") {
      const name = parsed.name ?? toolCallName(parsed.tool, parsed.args);
      observer.onToolStart?.({ tool: parsed.tool, name, args: parsed.args, startedAt: new Date() });
    } else if (parsed.type === "text") observer.onText?.(parsed.text);
    else if (parsed.type === "log") observer.onLog?.(parsed.message);
    else if (parsed.type === "result") result = parsed;
    else {
      const lineUsage = {
        inputTokens: parsed.input_tokens,
        outputTokens: parsed.output_tokens,
        cacheReadTokens: parsed.cache_read_tokens,
        cacheWriteTokens: parsed.cache_write_tokens,
        costUsd: parsed.cost,
      };
      addUsage(usage, lineUsage);
      if (parsed.context_tokens !== undefined) contextTokens = parsed.context_tokens;
      observer.onUsage?.(lineUsage);
    }
  };
  const outcome = await spawnAgent({
    command,
    cwd: request.cwd,
    sandbox: request.sandbox,
    ...(request.env === undefined ? {} : { env: request.env }),
    stdin: `${JSON.stringify(stdin)}\n`,
    rawOutputPath: request.rawOutputPath,
    timeouts: request.timeouts,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    onLine,
    observer,
  });

  const final = result as ExecResultLine | null;
  const text = final?.text ?? "";
  const failure = failureOf(request, outcome, final);
  if (failure === null) return { ok: true, text, usage, contextTokens, exitCode: outcome.exitCode };
  const limited = failure.kind === "rate_limited" || failure.kind === "usage_limit";
  return {
    ok: false,
    text,
    usage,
    contextTokens,
    errorKind: failure.kind,
    error: failure.message,
    exitCode: outcome.exitCode,
    ...(limited && final?.retry_after_ms !== undefined ? { retryAfterMs: final.retry_after_ms } : {}),
    ...(limited && final?.resets_at !== undefined ? { resetsAt: final.resets_at } : {}),
  };
}

/** `sssf doctor` for an exec agent: a command is configured and its program can be found. */
async function doctorExec(request: RuntimeDoctorRequest): Promise<RuntimeCheck[]> {
  const program = request.command?.[0];
  if (program === undefined) {
    return [
      {
        ok: false,
        item: "command",
        detail: "no command configured (coding_agent: exec needs command: [program, …args])",
      },
    ];
  }
  const found = findExecutable(program, { cwd: request.cwd, env: { ...process.env, ...request.env } });
  return [
    found === null
      ? { ok: false, item: "command", detail: `${program} not found (on PATH or relative to ${request.cwd})` }
      : { ok: true, item: "command", detail: found },
  ];
}

/**
 * The sends of an exec agent's raw_output.jsonl: each ends with its `result` line; lines after the
 * last one are a send that ended without a reply (text null). A tool call without times is placed at
 * the epoch plus its duration (the arrival time is not on file).
 */
export function execRecordedSends(lines: readonly string[]): RecordedSend[] {
  const sends: RecordedSend[] = [];
  let current: RecordedSend = { text: null, usage: emptyUsage(), toolCalls: [] };
  let open = false;
  for (const line of lines) {
    const parsed = parseExecLine(line);
    if (parsed === null) continue;
    open = true;
    if (parsed.type === "tool_call") current.toolCalls.push(toToolCall(parsed, new Date(0)));
    else if (parsed.type === "usage")
      addUsage(current.usage, {
        inputTokens: parsed.input_tokens,
        outputTokens: parsed.output_tokens,
        cacheReadTokens: parsed.cache_read_tokens,
        cacheWriteTokens: parsed.cache_write_tokens,
        costUsd: parsed.cost,
      });
    else if (parsed.type === "result") {
      current.text = parsed.text;
      sends.push(current);
      current = { text: null, usage: emptyUsage(), toolCalls: [] };
      open = false;
    }
  }
  if (open) sends.push(current);
  return sends;
}

/** Runtime `exec`. Contract: `send` never throws; every failure is `{ ok: false, errorKind, error }`. */
export const execRuntime: Runtime = {
  id: "exec",
  specVersion: "sssf-runtime/1",
  send: sendExec,
  doctor: doctorExec,
  recordedSends: execRecordedSends,
};
