/**
 * The `gemini` runtime: drives Google's gemini-cli (`@google/gemini-cli`, written against 0.61.0)
 * headlessly through `runCliSend`. The prompt goes on stdin (no `-p`: a non-TTY stdin is headless
 * mode), the system prompt through `GEMINI_SYSTEM_MD` pointing at a file in the session dir, the tool
 * allowlist through a `--policy` file, the session through `--session-id` / `--resume` chosen from
 * gemini's own session store, and stdout through a relay (./gemini-relay.ts) so that nothing is lost
 * when gemini exits. See docs/runtimes/gemini.md.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";
import {
  type AgentSendObserver,
  type AgentSendRequest,
  type AgentSendResult,
  emptyUsage,
  type ModelCheck,
  type ModelCheckRequest,
  type Runtime,
  type SendErrorKind,
} from "../runtime.js";
import { runCliSend } from "../send-loop/cli-runtime.js";
import {
  approvalModeFor,
  geminiPolicyToml,
  sessionArgs,
  validateGeminiTools,
  workspaceArgs,
} from "./args.js";
import { doctorGemini } from "./doctor.js";
import { createGeminiParser } from "./events.js";
import { locateGeminiPackage, resolveGeminiModel } from "./models.js";
import { type GeminiRelay, geminiRelay } from "./relay.js";
import { geminiContextTokens, planGeminiSession } from "./session.js";
import { type GeminiEnv, geminiUserDir } from "./settings.js";

/** gemini-cli reads at most this much from stdin and silently drops the rest. */
export const GEMINI_MAX_PROMPT_BYTES = 8 * 1024 * 1024;

/** The argv prefix that runs gemini: the agent's `command`, else `gemini` on PATH. */
export function geminiCommand(request: { command?: string[] | undefined }): string[] {
  return request.command && request.command.length > 0 ? request.command : ["gemini"];
}

/**
 * Environment switches set on every call: the system prompt file; `TMPDIR` inside the session dir
 * (gemini writes crash reports holding the whole conversation to the system temp folder); no
 * relaunch into a second node process; telemetry off; the working tree trusted, since an untrusted
 * folder silently forces the approval mode back to `default`; no ANSI colour in error text.
 */
export function geminiEnv(systemPromptFile: string, tmpDir: string): Record<string, string> {
  return {
    GEMINI_SYSTEM_MD: systemPromptFile,
    TMPDIR: tmpDir,
    GEMINI_CLI_NO_RELAUNCH: "true",
    GEMINI_TELEMETRY_ENABLED: "false",
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    NO_COLOR: "1",
  };
}

function failed(request: AgentSendRequest, kind: SendErrorKind, message: string): AgentSendResult {
  const error = `agent ${request.agent} (gemini): ${message}`;
  return {
    ok: false,
    text: "",
    usage: emptyUsage(),
    contextTokens: null,
    errorKind: kind,
    error,
    exitCode: null,
  };
}

const THINKING_NOTE =
  "gemini-cli has no per-call thinking switch (only modelConfigs in its settings.json), so thinking=%s is not applied; gemini uses its own configured thinking";

async function sendUnguarded(
  request: AgentSendRequest,
  observer: AgentSendObserver,
): Promise<AgentSendResult> {
  const toolError = validateGeminiTools(request.tools);
  if (toolError !== null) return failed(request, "spawn_failed", toolError);
  const promptBytes = Buffer.byteLength(request.prompt, "utf8");
  if (promptBytes > GEMINI_MAX_PROMPT_BYTES) {
    const limit = `gemini-cli reads at most ${GEMINI_MAX_PROMPT_BYTES} bytes from stdin and would cut the rest`;
    return failed(request, "spawn_failed", `the prompt is ${promptBytes} bytes; ${limit}`);
  }
  const env: GeminiEnv = { ...process.env, ...request.env };
  const command = geminiCommand(request);
  if (findExecutable(command[0] ?? "gemini", { cwd: request.cwd, env }) === null) {
    return failed(request, "spawn_failed", `${command[0]} not found (on PATH or relative to ${request.cwd})`);
  }
  const model = resolveGeminiModel(
    request.model,
    locateGeminiPackage(command, request.cwd, env),
    env,
    request.cwd,
  );
  if (!model.ok) return failed(request, "model_unknown", model.message);
  if (model.note !== undefined) observer.onLog?.(model.note);
  if (request.thinking !== "off") observer.onLog?.(THINKING_NOTE.replace("%s", request.thinking));

  const geminiDir = geminiUserDir(env);
  const plan = planGeminiSession({
    geminiDir,
    cwd: request.cwd,
    sessionId: request.sessionId,
    resume: request.resume,
    nativeSessionId: request.nativeSessionId,
  });
  if (plan === null) {
    return failed(
      request,
      "spawn_failed",
      `every gemini session id derived from ${request.sessionId} is dead`,
    );
  }
  if (plan.note !== undefined) observer.onLog?.(plan.note, { gemini_session_id: plan.uuid });

  const systemPromptFile = path.join(request.sessionDir, "gemini-system.md");
  const policyFile = path.join(request.sessionDir, "gemini-policy.toml");
  const tmpDir = path.join(request.sessionDir, "tmp");
  const argv = [
    ...command,
    "--output-format",
    "stream-json",
    ...model.args,
    ...sessionArgs(plan.uuid, plan.resume),
    "--policy",
    policyFile,
    "--approval-mode",
    approvalModeFor(request.tools),
    ...workspaceArgs(request.contextHandoffDir),
  ];
  const handoff = request.contextHandoffDir;
  try {
    // gemini exits 1 on an --include-directories folder that does not exist. Inside sssf's box the
    // path is the box's own (it exists there), never one to make on the host.
    if (handoff && request.sandbox === undefined) mkdirSync(handoff, { recursive: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return failed(request, "spawn_failed", `cannot create the handoff folder ${handoff}: ${reason}`);
  }
  let relay: GeminiRelay;
  try {
    mkdirSync(tmpDir, { recursive: true });
    writeFileSync(systemPromptFile, request.systemPrompt);
    writeFileSync(policyFile, geminiPolicyToml(request.tools));
    relay = geminiRelay(request.sessionDir, argv);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return failed(request, "spawn_failed", `cannot write its files in ${request.sessionDir}: ${reason}`);
  }
  const parser = createGeminiParser(observer, {
    sessionId: plan.uuid,
    contextTokens: () => geminiContextTokens(geminiDir, request.cwd, plan.uuid),
  });
  return runCliSend(request, observer, "gemini", {
    command: relay.command,
    stdin: request.prompt,
    // Inside sssf's box gemini's own sandbox (docker, podman…) is off: the box holds its writes.
    env: {
      ...geminiEnv(systemPromptFile, tmpDir),
      ...(request.sandbox === undefined ? {} : { GEMINI_SANDBOX: "false" }),
    },
    parser,
    cleanup: relay.cleanup,
  });
}

async function sendGemini(request: AgentSendRequest, observer: AgentSendObserver): Promise<AgentSendResult> {
  try {
    return await sendUnguarded(request, observer);
  } catch (error) {
    return failed(request, "spawn_failed", error instanceof Error ? error.message : String(error));
  }
}

/** `checkModel`: the agent's model against the installed gemini-cli's catalog and the user's settings. */
async function checkGeminiModel(request: ModelCheckRequest): Promise<ModelCheck> {
  try {
    const env: GeminiEnv = { ...process.env, ...request.env };
    const pkg = locateGeminiPackage(geminiCommand(request), request.cwd, env);
    const resolved = resolveGeminiModel(request.model, pkg, env, request.cwd);
    if (!resolved.ok) return { status: "unknown", error: resolved.message };
    return resolved.note === undefined ? { status: "known" } : { status: "unsure", detail: resolved.note };
  } catch (error) {
    return { status: "unsure", detail: (error as Error).message };
  }
}

/** Runtime `gemini`. Contract: `send` never throws; every failure is `{ ok: false, errorKind, error }`. */
export const geminiRuntime: Runtime = {
  id: "gemini",
  specVersion: "sssf-runtime/1",
  send: sendGemini,
  doctor: doctorGemini,
  checkModel: checkGeminiModel,
  statePaths: (env) => ({ folders: [geminiUserDir(env)] }),
};
