/**
 * The `opencode` runtime: drives `opencode run --format json` (opencode-ai) through the shared CLI send
 * loop. The prompt goes on stdin; the system prompt and tool permissions travel as a per-call agent
 * definition (OPENCODE_CONFIG_CONTENT pointing at a prompt file). See docs/runtimes/opencode.md.
 */

import { mkdirSync, writeFileSync } from "node:fs";
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
import {
  OPENCODE_ENV,
  opencodeArgs,
  opencodeConfigContent,
  validateOpencodeTools,
  withHandoffDirectory,
} from "./args.js";
import { readOpencodeConfig, stripJsonc } from "./config-files.js";
import { doctorOpencode, opencodeCommand } from "./doctor.js";
import { createOpencodeStreamParser } from "./events.js";
import { loadOpencodeModelSources, resolveOpencodeModel } from "./models.js";
import { planOpencodeSession, recordOpencodeSession } from "./session.js";
import { opencodeStatePaths } from "./state-paths.js";

const LABEL = "opencode";

/** A caller-set OPENCODE_CONFIG_CONTENT, kept under sssf's agent definition when it is a JSON object. */
function baseConfigContent(raw: string | undefined, observer: AgentSendObserver): Record<string, unknown> {
  if (raw === undefined || raw.trim() === "") return {};
  try {
    const parsed = JSON.parse(stripJsonc(raw)) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  noteToObserver(observer, "ignoring OPENCODE_CONFIG_CONTENT from the environment: not a JSON object");
  return {};
}

/** Writes the system prompt where opencode's `{file:…}` substitution reads it; returns its path or an error. */
function writeSystemPrompt(request: AgentSendRequest): { file: string } | { error: string } {
  const name = request.sessionId.replace(/[^A-Za-z0-9._-]/g, "_");
  const file = path.resolve(request.sessionDir, `${name}.opencode-system.md`);
  // opencode's `{file:…}` reference ends at the first `}`.
  if (file.includes("}"))
    return {
      error: `the session folder path ${file} contains "}", which opencode cannot read a prompt file from`,
    };
  try {
    mkdirSync(request.sessionDir, { recursive: true });
    writeFileSync(file, request.systemPrompt);
    return { file };
  } catch (error) {
    return { error: `could not write ${file}: ${(error as Error).message}` };
  }
}

async function sendOpencode(
  request: AgentSendRequest,
  observer: AgentSendObserver,
): Promise<AgentSendResult> {
  const command = opencodeCommand(request.command);
  const env = { ...process.env, ...request.env };
  const config = readOpencodeConfig(request.cwd, env);
  const tools = validateOpencodeTools(request.tools, config.permission);
  if (!tools.ok) return refuseSend(request, LABEL, "spawn_failed", tools.error);
  let model: string | null = null;
  if (request.model.trim() !== "") {
    const binary = findExecutable(command[0] ?? LABEL, { cwd: request.cwd, env });
    const sources = loadOpencodeModelSources(request.cwd, env, binary, config);
    const resolved = resolveOpencodeModel(request.model, sources);
    if (!resolved.ok) return refuseSend(request, LABEL, "model_unknown", resolved.error);
    if (!resolved.verified)
      noteToObserver(observer, `opencode model ${resolved.model} passed unchecked (${resolved.source})`);
    model = resolved.model;
  }
  const session = planOpencodeSession(request);
  if (!session.ok) return refuseSend(request, LABEL, "spawn_failed", session.error);
  if (session.note !== undefined) noteToObserver(observer, session.note);
  const prompt = writeSystemPrompt(request);
  if ("error" in prompt) return refuseSend(request, LABEL, "spawn_failed", prompt.error);

  const configContent = opencodeConfigContent(
    prompt.file,
    withHandoffDirectory(tools.permission, request.contextHandoffDir),
    baseConfigContent(env.OPENCODE_CONFIG_CONTENT, observer),
  );
  const args = opencodeArgs({
    model,
    thinking: request.thinking,
    session: session.session,
    title: request.sessionId,
    cwd: request.cwd,
  });
  // request.env wins over the invocation env in runCliSend, so sssf's own entries go into it last.
  // opencode takes its directory from PWD before the process cwd.
  const sendRequest = {
    ...request,
    env: { ...request.env, OPENCODE_CONFIG_CONTENT: configContent, PWD: request.cwd },
  };
  const result = await runCliSend(sendRequest, observer, LABEL, {
    command: [...command, ...args],
    stdin: request.prompt,
    env: { ...OPENCODE_ENV },
    parser: createOpencodeStreamParser(observer, session.session),
  });
  // A continued session keeps its id even if the stream named another one (the parser reports that).
  const nativeSessionId = session.session ?? result.nativeSessionId;
  if (nativeSessionId !== undefined) {
    const problem = recordOpencodeSession(request.sessionDir, request.sessionId, nativeSessionId);
    if (problem !== null) noteToObserver(observer, problem);
  }
  return { ...result, nativeSessionId };
}

/** `checkModel`: the agent's model against opencode's config files and catalog, as a send resolves it. */
async function checkOpencodeModel(request: ModelCheckRequest): Promise<ModelCheck> {
  try {
    const command = opencodeCommand(request.command);
    const env = { ...process.env, ...request.env };
    const config = readOpencodeConfig(request.cwd, env);
    const binary = findExecutable(command[0] ?? LABEL, { cwd: request.cwd, env });
    const resolved = resolveOpencodeModel(
      request.model,
      loadOpencodeModelSources(request.cwd, env, binary, config),
    );
    if (!resolved.ok) return { status: "unknown", error: resolved.error };
    return resolved.verified ? { status: "known" } : { status: "unsure", detail: resolved.source };
  } catch (error) {
    return { status: "unsure", detail: (error as Error).message };
  }
}

/**
 * Runtime `opencode`. Contract: `send` never throws; every failure is `{ ok: false, errorKind, error }`,
 * decided from the event stream's `error` events as well as the exit.
 */
export const opencodeRuntime: Runtime = {
  id: "opencode",
  specVersion: "sssf-runtime/1",
  send: sendOpencode,
  doctor: doctorOpencode,
  checkModel: checkOpencodeModel,
  statePaths: opencodeStatePaths,
};
