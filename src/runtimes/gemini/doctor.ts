/**
 * `sssf doctor` for a gemini agent: the binary and its version, the model, the credentials (variable
 * names only, never values) and the one piece of side traffic sssf cannot switch off per call.
 */

import { execFile } from "node:child_process";
import { findExecutable } from "../../util/find-executable.js";
import type { RuntimeCheck, RuntimeDoctorRequest } from "../runtime.js";
import { locateGeminiPackage, resolveGeminiModel } from "./models.js";
import { type GeminiEnv, geminiSetting } from "./settings.js";

/** `<command> --version`, for a gemini that is not an npm package sssf can read. Never rejects. */
function spawnVersion(command: string[], env: GeminiEnv, cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    const [program, ...rest] = command;
    if (program === undefined) return resolve(null);
    try {
      execFile(
        program,
        [...rest, "--version"],
        { cwd, env: { ...env, GEMINI_CLI_NO_RELAUNCH: "true" }, timeout: 60_000 },
        (error, stdout) => resolve(error ? null : stdout.trim().split("\n").at(-1) || null),
      );
    } catch {
      resolve(null);
    }
  });
}

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
      "not set (nor GOOGLE_API_KEY, nor a keyless security.auth.selectedType in gemini's settings.json)",
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
    const version = pkg?.version ?? (await spawnVersion(command, env, request.cwd));
    checks.push(
      version === null
        ? { ok: false, item: "version", detail: `\`${command.join(" ")} --version\` failed` }
        : { ok: true, item: "version", detail: `gemini-cli ${version}` },
    );
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
