/**
 * The `pi` runtime (sssf's default): drives `pi --print --mode json` (@mariozechner/pi-coding-agent)
 * through the shared CLI send loop. See docs/runtimes/pi.md for argv, session mapping and gotchas.
 */

import { writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentSendObserver, AgentSendRequest, AgentSendResult, Runtime } from "../runtime.js";
import { noteToObserver, refuseSend, runCliSend } from "../send-loop/cli-runtime.js";
import { PI_ENV, piArgs, piToolArgs } from "./args.js";
import { doctorPi } from "./doctor.js";
import { createPiStreamParser } from "./events.js";
import { locatePi, PI_PACKAGE, type PiInstall, piCommand } from "./install.js";
import { checkPiModel } from "./model-check.js";
import { resolvePiModel } from "./model-resolve.js";
import { loadPiModelCatalog, piAgentDir } from "./models.js";
import { planPiSession } from "./session.js";
import { compactPiLine } from "./stream-filter.js";

const LABEL = "pi";

/** The `provider/id` to pass, null for pi's default, or the refusal. */
async function modelFor(
  request: AgentSendRequest,
  install: PiInstall,
  env: Record<string, string | undefined>,
  observer: AgentSendObserver,
): Promise<{ model: string | null } | { error: string }> {
  if (request.model.trim() === "") return { model: null };
  const catalog = await loadPiModelCatalog(install, env);
  const resolved = resolvePiModel(request.model, catalog);
  if (!resolved.ok) return { error: resolved.error };
  if (!resolved.verified) {
    noteToObserver(
      observer,
      `pi's built-in model catalog was not found next to ${install.binary}; model passed unchecked`,
    );
  }
  return { model: resolved.model };
}

/** Writes the system prompt file: pi does not store it in the session, so it goes with every send. */
function writeSendFiles(request: AgentSendRequest, sessionFile: string): { system: string } {
  const system = path.join(request.sessionDir, `${path.basename(sessionFile, ".jsonl")}.system.md`);
  writeFileSync(system, request.systemPrompt);
  return { system };
}

// pi's own message when `--model` names nothing it knows (exit 1, on stderr).
const PI_MODEL_NOT_FOUND = /Model "[^"]*" not found/;

async function sendPi(request: AgentSendRequest, observer: AgentSendObserver): Promise<AgentSendResult> {
  const command = piCommand(request.command);
  const env = { ...process.env, ...PI_ENV, ...request.env };
  const install = locatePi(command, { cwd: request.cwd, env });
  if (install === null) {
    const fix = `install ${PI_PACKAGE}, or set the agent's command: [path/to/pi]`;
    return refuseSend(
      request,
      LABEL,
      "spawn_failed",
      `${command[0]} not found (on PATH or relative to ${request.cwd}); ${fix}`,
    );
  }
  const tools = piToolArgs(request.tools);
  if (!tools.ok) return refuseSend(request, LABEL, "spawn_failed", tools.error);
  const model = await modelFor(request, install, env, observer);
  if ("error" in model) return refuseSend(request, LABEL, "model_unknown", model.error);
  const session = planPiSession(request);
  if (!session.ok) return refuseSend(request, LABEL, "spawn_failed", session.error);
  for (const message of session.notes) noteToObserver(observer, message);
  let files: { system: string };
  try {
    files = writeSendFiles(request, session.file);
  } catch (error) {
    return refuseSend(
      request,
      LABEL,
      "spawn_failed",
      `could not write to ${request.sessionDir}: ${(error as Error).message}`,
    );
  }
  const args = piArgs({
    sessionFile: session.file,
    sessionDir: request.sessionDir,
    systemPromptFile: files.system,
    model: model.model,
    thinking: request.thinking,
    toolArgs: tools.args,
  });
  const result = await runCliSend(request, observer, LABEL, {
    command: [...command, ...args],
    stdin: request.prompt,
    env: { ...PI_ENV },
    parser: createPiStreamParser(observer),
    transformLine: compactPiLine,
  });
  if (!result.ok && result.errorKind === "exit_nonzero" && PI_MODEL_NOT_FOUND.test(result.error ?? "")) {
    return { ...result, errorKind: "model_unknown" };
  }
  return result;
}

/**
 * Runtime `pi`. Contract: `send` never throws; every failure is `{ ok: false, errorKind, error }`,
 * decided from the event stream (pi exits 0 on model errors) as well as the exit.
 */
export const piRuntime: Runtime = {
  id: "pi",
  specVersion: "sssf-runtime/1",
  send: sendPi,
  doctor: doctorPi,
  checkModel: checkPiModel,
  statePaths: (env) => ({ folders: [piAgentDir(env)] }),
};
