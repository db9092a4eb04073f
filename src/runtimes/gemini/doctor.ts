/**
 * `sssf doctor` for a gemini agent: the binary and its version, the model, the credentials (variable
 * names only, never values) and the one piece of side traffic sssf cannot switch off per call.
 */

import { findExecutable } from "../../util/find-executable.js";
import type { RuntimeCheck, RuntimeDoctorRequest } from "../runtime.js";
import { cliVersionCheck } from "../send-loop/cli-version.js";
import { locateGeminiPackage, resolveGeminiModel } from "./models.js";
import { type GeminiEnv, geminiSetting } from "./settings.js";

/** Auth types in gemini's settings that need no API key variable. */
const KEYLESS_AUTH = new Set(["oauth-personal", "compute-default-credentials", "vertex-ai", "cloud-shell"]);

function authCheck(env: GeminiEnv, cwd: string): RuntimeCheck {
  if (env.GEMINI_API_KEY) return { ok: true, item: "GEMINI_API_KEY", detail: "set" };
  if (env.GOOGLE_API_KEY) return { ok: true, item: "GOOGLE_API_KEY", detail: "set" };
  const selected = geminiSetting(env, cwd, ["security", "auth", "selectedType"]);
  if (typeof selected === "string" && KEYLESS_AUTH.has(selected)) {
    return {
      ok: true,
      item: "GEMINI_API_KEY",
      detail: `not needed: gemini settings select ${selected} auth`,
    };
  }
  return {
    ok: false,
    item: "GEMINI_API_KEY",
    detail:
      "not set (nor GOOGLE_API_KEY, nor a keyless security.auth.selectedType in gemini's settings.json); set GEMINI_API_KEY in the agent's env, or run `gemini` and choose Login with Google",
  };
}

function usageStatisticsCheck(env: GeminiEnv, cwd: string): RuntimeCheck {
  const enabled = geminiSetting(env, cwd, ["privacy", "usageStatisticsEnabled"]);
  if (enabled === false)
    return { ok: true, item: "usage statistics", detail: "off (privacy.usageStatisticsEnabled)" };
  return {
    ok: false,
    item: "usage statistics",
    detail:
      "gemini sends usage statistics to Google unless its settings.json sets privacy.usageStatisticsEnabled to false (no environment variable or flag can turn it off per call)",
  };
}

/**
 * Checks for one gemini agent. Reads the version from the package's manifest, and spawns
 * `--version` only for a gemini it cannot locate as a package. Never throws; never calls a model.
 */
export async function doctorGemini(request: RuntimeDoctorRequest): Promise<RuntimeCheck[]> {
  try {
    const env: GeminiEnv = { ...process.env, ...request.env };
    const command = request.command && request.command.length > 0 ? request.command : ["gemini"];
    const program = command[0] ?? "gemini";
    const found = findExecutable(program, { cwd: request.cwd, env });
    if (found === null) {
      return [
        { ok: false, item: "binary", detail: `${program} not found (on PATH or relative to ${request.cwd})` },
      ];
    }
    const checks: RuntimeCheck[] = [{ ok: true, item: "binary", detail: found }];
    const pkg = locateGeminiPackage(command, request.cwd, env);
    if (pkg !== null) checks.push({ ok: true, item: "version", detail: `gemini-cli ${pkg.version}` });
    else {
      const versionEnv = { ...env, GEMINI_CLI_NO_RELAUNCH: "true" };
      const spawned = await cliVersionCheck(command, {
        cwd: request.cwd,
        env: versionEnv,
        timeoutMs: 60_000,
      });
      checks.push(spawned.ok ? { ...spawned, detail: `gemini-cli ${spawned.detail}` } : spawned);
    }
    const model = resolveGeminiModel(request.model, pkg, env, request.cwd);
    const modelDetail =
      request.model === "" ? "gemini's default" : model.ok ? (model.note ?? request.model) : "";
    checks.push(
      model.ok
        ? { ok: true, item: "model", detail: modelDetail }
        : { ok: false, item: "model", detail: model.message },
    );
    checks.push(authCheck(env, request.cwd), usageStatisticsCheck(env, request.cwd));
    return checks;
  } catch (error) {
    return [{ ok: false, item: "doctor", detail: error instanceof Error ? error.message : String(error) }];
  }
}
