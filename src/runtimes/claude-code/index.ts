/**
 * The `claude_code` runtime: drives `claude -p --output-format stream-json --verbose`
 * (@anthropic-ai/claude-code) through the shared CLI send loop. See docs/runtimes/claude_code.md for
 * argv, session mapping, tool and thinking mapping, usage semantics and gotchas.
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";
import type {
  AgentSendObserver,
  AgentSendRequest,
  AgentSendResult,
  ModelCheck,
  ModelCheckRequest,
  Runtime,
} from "../runtime.js";
import { noteToObserver, refuseSend, runCliSend } from "../send-loop/cli-runtime.js";
import { CLAUDE_PACKAGE, claudeArgs, claudeCommand, claudeEnv, validateClaudeCodeSettings } from "./args.js";
import { doctorClaudeCode } from "./doctor.js";
import { createClaudeStreamParser } from "./events.js";
import { claudeTmpDir, removeClaudeSocket } from "./scratch.js";
import { planClaudeSession, recordClaudeSession } from "./session.js";
import { claudeStatePaths } from "./state-paths.js";
import { type ClaudeSchemaArg, claudeSchemaArg, describeStructuredOutcome } from "./structured-output.js";

const LABEL = "claude_code";

/** Writes this send's system prompt where `--system-prompt-file` reads it; removed after the call. */
function writeSystemPrompt(request: AgentSendRequest, uuid: string): string {
  const dir = path.join(request.sessionDir, "claude-code");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${uuid}.system-${randomBytes(4).toString("hex")}.md`);
  writeFileSync(file, request.systemPrompt);
  return file;
}

/** A trace line about the native structured-output layer; an observer that throws is not the send's failure. */
function logNative(observer: AgentSendObserver, message: string, details: Record<string, unknown>): void {
  try {
    observer.onLog?.(message, details);
  } catch {
    // The observer's failure is not the send's.
  }
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
  const handoff = request.contextHandoffDir;
  try {
    // claude skips an --add-dir folder that does not exist; the engine makes it, a library caller may not.
    // Inside sssf's box the path is the box's own (it exists there), never one to make on the host.
    if (handoff && request.sandbox === undefined) mkdirSync(handoff, { recursive: true });
  } catch (error) {
    return refuseSend(
      request,
      LABEL,
      "spawn_failed",
      `could not create the handoff folder ${handoff}: ${(error as Error).message}`,
    );
  }
  const schema: ClaudeSchemaArg | null =
    request.outputSchema === undefined ? null : claudeSchemaArg(request.outputSchema);
  const args = claudeArgs({
    uuid: session.uuid,
    resume: session.resume,
    model: request.model,
    thinking: request.thinking,
    tools: request.tools,
    systemPromptFile,
    jsonSchema: schema?.ok ? schema.json : null,
    contextHandoffDir: request.contextHandoffDir,
    maxBudgetUsd: request.maxBudgetUsd,
    boxed: request.sandbox !== undefined,
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
  const parser = createClaudeStreamParser({
    observer,
    model: request.model,
    structured: schema?.ok === true,
  });
  let result = await runCliSend(request, watched, LABEL, {
    command: [...command, ...args],
    stdin: request.prompt,
    env: sendEnv,
    parser,
    cleanup: () => rmSync(systemPromptFile, { force: true }),
  });
  if (started.pid !== null) removeClaudeSocket(started.pid, { ...env, ...sendEnv, ...request.env });
  recordClaudeSession(request, session.uuid, session.transcript);
  if (schema?.ok) {
    const outcome = parser.structured();
    // claude exits 1 when it gives up on the schema; the door still gets the last attempt to correct.
    if (outcome.gaveUp && result.errorKind === "exit_nonzero" && result.exitCode === 1)
      result = { ...result, ok: true, errorKind: undefined, error: undefined };
    const line = describeStructuredOutcome(outcome, result.ok);
    logNative(observer, line.message, line.details);
  } else {
    logNative(
      observer,
      schema === null
        ? "claude_code: no native output schema for this send (the call has no JSON schema); the door alone checks the reply"
        : `claude_code: native output schema not passed: ${schema.reason}; the door alone checks the reply`,
      { layer: "native", native_schema: false },
    );
  }
  return { ...result, nativeSessionId: result.nativeSessionId ?? session.uuid };
}

/**
 * `checkModel`: claude sends any model name to its endpoint (a gateway may serve it), so only a name
 * that cannot be a model name is unknown; any other is for the endpoint to judge at the first send.
 */
async function checkClaudeModel(request: ModelCheckRequest): Promise<ModelCheck> {
  const problem = validateClaudeCodeSettings({ model: request.model, tools: [] }).find(
    (p) => p.kind === "model_unknown",
  );
  return problem === undefined
    ? { status: "unsure", detail: "claude passes the name to its endpoint, which decides" }
    : { status: "unknown", error: problem.message };
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
  checkModel: checkClaudeModel,
  statePaths: claudeStatePaths,
};
