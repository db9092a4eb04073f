/**
 * `sssf doctor` for a codex agent: the binary and its version, the config codex will read, the
 * model resolved against codex's catalog, and the credential variable names (never their values).
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";
import type { RuntimeCheck, RuntimeDoctorRequest } from "../runtime.js";
import { cliVersionCheck } from "../send-loop/cli-version.js";
import { loadCodexCatalog } from "./catalog.js";
import { type CodexConfig, type CodexEnv, readCodexConfig, usesCustomEndpoint } from "./config.js";
import { resolveCodexModel } from "./models.js";
import { codexCommand } from "./prepare.js";
import { codexNativeBinary, SANDBOX_HELPER } from "./sandbox-helper.js";

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function credentials(config: CodexConfig, env: CodexEnv): RuntimeCheck {
  const set = (name: string) => (env[name] ?? "") !== "";
  const envKey = config.provider.env_key;
  if (envKey !== undefined) {
    return set(envKey)
      ? { ok: true, item: envKey, detail: `set (model_provider "${config.modelProvider}")` }
      : {
          ok: false,
          item: envKey,
          detail: `not set; model_provider "${config.modelProvider}" reads its key from it`,
        };
  }
  if (config.modelProvider !== "openai") {
    return {
      ok: true,
      item: "credentials",
      detail: `model_provider "${config.modelProvider}" has no env_key`,
    };
  }
  const found = ["CODEX_API_KEY", "OPENAI_API_KEY"].filter(set);
  const auth = path.join(config.home, "auth.json");
  if (found.length > 0) return { ok: true, item: found.join(", "), detail: "set" };
  if (existsSync(auth)) return { ok: true, item: "credentials", detail: `${auth} (codex login)` };
  return {
    ok: false,
    item: "OPENAI_API_KEY",
    detail: `not set, and no ${auth}: run \`codex login\` or set OPENAI_API_KEY`,
  };
}

async function modelCheck(
  request: RuntimeDoctorRequest,
  command: string[],
  env: CodexEnv,
  config: CodexConfig,
) {
  try {
    const catalog = await loadCodexCatalog(command, request.cwd, env, config);
    const resolved = resolveCodexModel(request.model, "medium", catalog, config);
    if (!resolved.ok) return { ok: false, item: "model", detail: resolved.message };
    const name = request.model === "" ? (config.model ?? "codex's own default") : request.model;
    const where =
      resolved.choice.entry !== null
        ? "in codex's catalog"
        : usesCustomEndpoint(config)
          ? `served by model_provider "${config.modelProvider}" (not in codex's catalog: generic metadata)`
          : "codex's default";
    return { ok: true, item: "model", detail: `${name} (${where})` };
  } catch (error) {
    return { ok: false, item: "model", detail: `cannot read codex's model catalog: ${describe(error)}` };
  }
}

/**
 * A warning when sssf cannot tell which codex binary the command runs (another wrapper): it then links
 * no `codex-linux-sandbox`, and outside sssf's box codex's sandbox needs the one codex links itself.
 * Nothing on other systems, or when the binary is found.
 */
function sandboxHelperCheck(command: string[], cwd: string, env: CodexEnv): RuntimeCheck[] {
  if (process.platform !== "linux" || codexNativeBinary(command, { cwd, env }) !== null) return [];
  return [
    {
      ok: true,
      warning: true,
      item: SANDBOX_HELPER,
      detail: `cannot tell which codex binary \`${command.join(" ")}\` runs, so sssf links no ${SANDBOX_HELPER} for it: outside sssf's box codex's shell calls fail (\`bwrap: execvp ${SANDBOX_HELPER}\`) unless codex links its own (not when CODEX_HOME is under the temporary folder); name codex's own binary or npm's bin/codex.js in the agent's command`,
    },
  ];
}

/** The checks; never throws, never sends a model request. */
export async function doctorCodex(request: RuntimeDoctorRequest): Promise<RuntimeCheck[]> {
  try {
    const command = codexCommand(request.command);
    const env: CodexEnv = { ...process.env, ...request.env };
    const program = command[0] ?? "codex";
    const found = findExecutable(program, { cwd: request.cwd, env });
    if (found === null) {
      return [
        {
          ok: false,
          item: "binary",
          detail: `${program} not found (on PATH or relative to ${request.cwd}); install @openai/codex`,
        },
      ];
    }
    const config = readCodexConfig(env);
    return [
      { ok: true, item: "binary", detail: found },
      await cliVersionCheck(command, {
        cwd: request.cwd,
        env: { ...process.env, ...env, RUST_BACKTRACE: "0" },
        timeoutMs: 15_000,
      }),
      {
        ok: true,
        item: "config",
        detail: `${config.file}${config.exists ? "" : " (absent: codex defaults)"}; model_provider "${config.modelProvider}"`,
      },
      await modelCheck(request, command, env, config),
      credentials(config, env),
      ...sandboxHelperCheck(command, request.cwd, env),
    ];
  } catch (error) {
    return [{ ok: false, item: "codex", detail: `doctor failed: ${describe(error)}` }];
  }
}
