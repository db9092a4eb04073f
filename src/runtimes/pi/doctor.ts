/**
 * `sssf doctor` for a pi agent: the binary and its version, the model resolvable, models.json
 * readable, and the provider's credentials present (names only). Runs `pi --version` once; never a
 * model request.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import type { RuntimeCheck, RuntimeDoctorRequest } from "../runtime.js";
import { cliVersionCheck } from "../send-loop/cli-version.js";
import { PI_ENV } from "./args.js";
import { piAnyCredentialCheck, piCredentialCheck } from "./credentials.js";
import { locatePi, PI_PACKAGE, piCommand } from "./install.js";
import { resolvePiModel } from "./model-resolve.js";
import { loadPiModelCatalog, type PiModelCatalog } from "./models.js";

const VERSION_TIMEOUT_MS = 20_000;

/** The `provider/id` pi would pick with no `--model`, when settings.json names one. */
function settingsDefault(catalog: PiModelCatalog): string | null {
  try {
    const settings = JSON.parse(readFileSync(path.join(catalog.agentDir, "settings.json"), "utf8")) as {
      defaultProvider?: unknown;
      defaultModel?: unknown;
    };
    const { defaultProvider: provider, defaultModel: model } = settings;
    return typeof provider === "string" && typeof model === "string" ? `${provider}/${model}` : null;
  } catch {
    return null;
  }
}

function modelChecks(
  request: RuntimeDoctorRequest,
  catalog: PiModelCatalog,
  env: Record<string, string | undefined>,
): RuntimeCheck[] {
  const checks: RuntimeCheck[] = catalog.problems.map((problem) => ({
    ok: false,
    item: "models.json",
    detail: problem,
  }));
  let chosen: string | null;
  if (request.model.trim() === "") {
    chosen = settingsDefault(catalog);
    const detail =
      chosen === null
        ? `pi's default (no defaultProvider/defaultModel in ${catalog.agentDir}/settings.json: the first provider with credentials)`
        : `pi's default: ${chosen} (from settings.json)`;
    checks.push({ ok: true, item: "model", detail });
  } else {
    const resolved = resolvePiModel(request.model, catalog);
    if (!resolved.ok) return [...checks, { ok: false, item: "model", detail: resolved.error }];
    chosen = resolved.model;
    const detail = resolved.verified
      ? resolved.model
      : `${resolved.model} (unchecked: built-in catalog not found)`;
    checks.push({ ok: true, item: "model", detail });
  }
  const slash = chosen?.indexOf("/") ?? -1;
  if (chosen !== null && slash > 0) checks.push(piCredentialCheck(chosen.slice(0, slash), catalog, env));
  else if (chosen === null) checks.push(piAnyCredentialCheck(catalog, env));
  return checks;
}

/** Checks for one pi agent. Never throws. */
export async function doctorPi(request: RuntimeDoctorRequest): Promise<RuntimeCheck[]> {
  try {
    const command = piCommand(request.command);
    const env = { ...process.env, ...PI_ENV, ...request.env };
    const install = locatePi(command, { cwd: request.cwd, env });
    if (install === null) {
      const hint = `install ${PI_PACKAGE}, or set the agent's command: [path/to/pi]`;
      return [
        {
          ok: false,
          item: "binary",
          detail: `${command[0]} not found (on PATH or relative to ${request.cwd}); ${hint}`,
        },
      ];
    }
    const checks: RuntimeCheck[] = [{ ok: true, item: "binary", detail: install.binary }];
    checks.push(await cliVersionCheck(command, { cwd: request.cwd, env, timeoutMs: VERSION_TIMEOUT_MS }));
    const catalog = await loadPiModelCatalog(install, env);
    return [...checks, ...modelChecks(request, catalog, env)];
  } catch (error) {
    return [{ ok: false, item: "pi", detail: `doctor failed: ${(error as Error).message}` }];
  }
}
