/**
 * Everything decided before codex starts: tools checked, model resolved against codex's catalog,
 * the thread to continue, the instruction (and, when needed, catalog) files written, the argv built.
 * A send that cannot be made honestly is refused here, without spawning codex.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentSendRequest, SendErrorKind } from "../runtime.js";
import { codexArgs, planCodexTools, validateCodexTools } from "./args.js";
import { type CodexCatalog, loadCodexCatalog, writeCatalogWithoutApplyPatch } from "./catalog.js";
import { type CodexConfig, type CodexEnv, readCodexConfig } from "./config.js";
import { resolveCodexModel } from "./models.js";
import { type CodexOutputSchema, writeCodexOutputSchema } from "./output-schema.js";
import { codexNativeBinary, linkSandboxHelper, pathWithFirst, SANDBOX_HELPER } from "./sandbox-helper.js";
import { isThreadId, recordedThread } from "./session.js";

/** A send ready to run. */
export interface PreparedCodexSend {
  argv: string[];
  config: CodexConfig;
  /** The thread to continue, or null for a new one. */
  threadId: string | null;
  /** The model codex will name in requests ("" when neither sssf nor config.toml names one). */
  model: string;
  /** The native output schema of this send (`--output-schema`), or why there is none. */
  outputSchema: CodexOutputSchema;
  /** Set over the agent's environment: `PATH` with the sandbox helper's folder first (outside the box, on Linux). */
  env: Record<string, string>;
}

/** Why a send is refused before spawning. */
export interface CodexRefusal {
  kind: SendErrorKind;
  message: string;
}

/** The argv prefix that runs codex: the agent's `command`, else `codex` on PATH. */
export const codexCommand = (command: string[] | undefined): string[] =>
  command !== undefined && command.length > 0 ? command : ["codex"];

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const fileSafe = (name: string): string => name.replace(/[^A-Za-z0-9._-]/g, "_");

function threadToContinue(
  request: AgentSendRequest,
  log: (message: string) => void,
): string | null | CodexRefusal {
  const threadId = request.nativeSessionId ?? recordedThread(request.sessionDir, request.sessionId) ?? null;
  if (threadId !== null && !isThreadId(threadId)) {
    return {
      kind: "spawn_failed",
      message: `the recorded codex thread id "${threadId}" is not a UUID; refusing to resume by name (codex would silently start a new thread)`,
    };
  }
  if (threadId === null && request.resume) {
    log(
      `codex: no codex thread was recorded for session ${request.sessionId} (no earlier send started one); starting a new thread`,
    );
  }
  return threadId;
}

/**
 * Outside sssf's box on Linux: `PATH` with a folder holding `codex-linux-sandbox` (a link to the native
 * codex binary) first, so codex's own sandbox finds its helper wherever `CODEX_HOME` is (sandbox-helper.ts).
 * Inside the box codex's sandbox is off and needs no helper. Never throws.
 */
function sandboxHelperEnv(
  request: AgentSendRequest,
  command: string[],
  env: CodexEnv,
  log: (message: string) => void,
): Record<string, string> {
  if (request.sandbox !== undefined || process.platform !== "linux") return {};
  const native = codexNativeBinary(command, { cwd: request.cwd, env });
  if (native === null) {
    log(
      `codex: cannot tell which codex binary \`${command.join(" ")}\` runs, so sssf puts no ${SANDBOX_HELPER} on PATH; codex's sandbox then relies on the one codex links itself (not made when CODEX_HOME is under the temporary folder)`,
    );
    return {};
  }
  try {
    const folder = linkSandboxHelper(path.join(request.sessionDir, "codex-path"), native);
    return { PATH: pathWithFirst(folder, env) };
  } catch (error) {
    log(`codex: cannot link ${SANDBOX_HELPER} in ${request.sessionDir}: ${describe(error)}`);
    return {};
  }
}

/** Prepares one send, or says why it cannot be made. Never throws. */
export async function prepareCodexSend(
  request: AgentSendRequest,
  log: (message: string) => void,
): Promise<PreparedCodexSend | CodexRefusal> {
  const toolError = validateCodexTools(request.tools);
  if (toolError !== null) return { kind: "spawn_failed", message: toolError };
  const command = codexCommand(request.command);
  const env: CodexEnv = { ...process.env, ...request.env };
  const config = readCodexConfig(env);
  let catalog: CodexCatalog | null = null;
  let catalogError = "";
  try {
    // Inside the box `cwd` is a path of the box; sssf runs codex's catalog query on the host.
    catalog = await loadCodexCatalog(command, request.sandbox?.hostCwd ?? request.cwd, env, config);
  } catch (error) {
    catalogError = describe(error);
    log(
      `codex: could not read codex's model catalog, so model "${request.model}" is not checked: ${catalogError}`,
    );
  }
  const resolved = resolveCodexModel(request.model, request.thinking, catalog, config);
  if (!resolved.ok) return { kind: "model_unknown", message: resolved.message };
  const { choice } = resolved;
  for (const note of choice.notes) log(`codex: ${note}`);
  const plan = planCodexTools(request.tools, choice.applyPatch);
  const threadId = threadToContinue(request, log);
  if (threadId !== null && typeof threadId !== "string") return threadId;

  // Inside sssf's box the handoff folder is a path of the box (the engine made it on the host).
  const handoff = request.sandbox === undefined ? request.contextHandoffDir : undefined;
  try {
    // codex cannot create files under an --add-dir folder that does not exist.
    if (handoff) mkdirSync(handoff, { recursive: true });
  } catch (error) {
    return {
      kind: "spawn_failed",
      message: `cannot create the handoff folder ${handoff}: ${describe(error)}`,
    };
  }
  try {
    mkdirSync(request.sessionDir, { recursive: true });
    const instructionsFile = path.join(request.sessionDir, `${fileSafe(request.sessionId)}.instructions.md`);
    writeFileSync(instructionsFile, request.systemPrompt);
    let catalogFile: string | null = null;
    if (!plan.applyPatch && choice.applyPatch !== false) {
      if (catalog === null) {
        return {
          kind: "spawn_failed",
          message: `cannot switch off codex's apply_patch tool without its model catalog: ${catalogError}`,
        };
      }
      const models = choice.entry === null ? catalog.models : [choice.entry];
      catalogFile = writeCatalogWithoutApplyPatch(
        path.join(request.sessionDir, "codex-catalog-no-apply-patch.json"),
        models,
      );
    }
    const outputSchema = writeCodexOutputSchema(request.sessionDir, request.sessionId, request.outputSchema);
    const argv = codexArgs({
      command,
      cwd: request.cwd,
      model: request.model,
      effort: choice.effort,
      plan,
      instructionsFile,
      catalogFile,
      threadId,
      outputSchemaFile: outputSchema.kind === "passed" ? outputSchema.file : null,
      contextHandoffDir: request.contextHandoffDir,
      boxed: request.sandbox !== undefined,
    });
    const model = request.model === "" ? (config.model ?? "") : request.model;
    return { argv, config, threadId, model, outputSchema, env: sandboxHelperEnv(request, command, env, log) };
  } catch (error) {
    return {
      kind: "spawn_failed",
      message: `cannot write codex's instruction files in ${request.sessionDir}: ${describe(error)}`,
    };
  }
}
