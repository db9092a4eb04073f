/**
 * The `claude_code` runtime: drives `claude -p --output-format stream-json --verbose`
 * (@anthropic-ai/claude-code) through the shared CLI send loop. See docs/runtimes/claude_code.md for
 * argv, session mapping, tool and thinking mapping, usage semantics and gotchas.
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";
import type { AgentSendObserver, AgentSendRequest, AgentSendResult, Runtime } from "../runtime.js";
import { noteToObserver, refuseSend, runCliSend } from "../send-loop/cli-runtime.js";
import { CLAUDE_PACKAGE, claudeArgs, claudeCommand, claudeEnv, validateClaudeCodeSettings } from "./args.js";
import { doctorClaudeCode } from "./doctor.js";
import { createClaudeStreamParser } from "./events.js";
import { claudeTmpDir, removeClaudeSocket } from "./scratch.js";
import { planClaudeSession, recordClaudeSession } from "./session.js";

const LABEL = "claude_code";

/** Writes this send's system prompt where `--system-prompt-file` reads it; removed after the call. */
function writeSystemPrompt(request: AgentSendRequest, uuid: string): string {
  const dir = path.join(request.sessionDir, "claude-code");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${uuid}.system-${randomBytes(4).toString("hex")}.md`);
  writeFileSync(file, request.systemPrompt);
  return file;
}

async function sendClaudeCode(
  request: AgentSendRequest,
  observer: AgentSendObserver,
): Promise<AgentSendResult> {
  const problems = validateClaudeCodeSettings(request);
  const first = problems[0];
  if (first !== undefined)
    return refuseSend(request, LABEL, first.kind, problems.map((one) => one.message).join("; "));
  const command = claudeCommand(request.command);
  const env = { ...process.env, ...request.env };
  if (findExecutable(command[0] ?? "", { cwd: request.cwd, env }) === null) {
    const fix = `install ${CLAUDE_PACKAGE}, or set the agent's command: [path/to/claude]`;
    return refuseSend(
      request,
      LABEL,
      "spawn_failed",
      `${command[0]} not found (on PATH or relative to ${request.cwd}); ${fix}`,
    );
  }
  const session = planClaudeSession(request);
  if (!session.ok) return refuseSend(request, LABEL, "spawn_failed", session.error);
  for (const message of session.notes) noteToObserver(observer, message);
  let systemPromptFile: string;
  try {
    systemPromptFile = writeSystemPrompt(request, session.uuid);
    mkdirSync(claudeTmpDir(request.sessionDir), { recursive: true });
  } catch (error) {
    return refuseSend(
      request,
      LABEL,
      "spawn_failed",
      `could not write to ${request.sessionDir}: ${(error as Error).message}`,
    );
  }
  const args = claudeArgs({
    uuid: session.uuid,
    resume: session.resume,
    model: request.model,
    thinking: request.thinking,
    tools: request.tools,
    systemPromptFile,
  });
  const tmp = claudeTmpDir(request.sessionDir);
  const sendEnv = { ...claudeEnv(request.thinking), CLAUDE_CODE_TMPDIR: tmp };
  const started: { pid: number | null } = { pid: null };
  const watched: AgentSendObserver = {
    onProcessStart(process) {
      started.pid = process.pid;
      observer.onProcessStart?.(process);
    },
    onProcessEnd: (process) => observer.onProcessEnd?.(process),
    onToolCall: (call) => observer.onToolCall?.(call),
    onUsage: (usage) => observer.onUsage?.(usage),
    onLog: (message, details) => observer.onLog?.(message, details),
  };
  const result = await runCliSend(request, watched, LABEL, {
    command: [...command, ...args],
    stdin: request.prompt,
    env: sendEnv,
    parser: createClaudeStreamParser({ observer, model: request.model }),
    cleanup: () => rmSync(systemPromptFile, { force: true }),
  });
  if (started.pid !== null) removeClaudeSocket(started.pid, { ...env, ...sendEnv, ...request.env });
  recordClaudeSession(request, session.uuid, session.transcript);
  return { ...result, nativeSessionId: result.nativeSessionId ?? session.uuid };
}

/**
 * Runtime `claude_code`. Contract: `send` never throws; every failure is `{ ok: false, errorKind,
 * error }`, decided from the stream's `result` line (`is_error`) as well as the exit code.
 */
export const claudeCodeRuntime: Runtime = {
  id: "claude_code",
  specVersion: "sssf-runtime/1",
  send: sendClaudeCode,
  doctor: doctorClaudeCode,
};
