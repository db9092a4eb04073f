/**
 * `sssf doctor` for an opencode agent: the binary and its version (one `opencode --version` spawn),
 * the config files readable, the model resolvable, and the provider's credentials present (variable
 * names and file names only, never values). Never a model request.
 */

import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";
import type { RuntimeCheck, RuntimeDoctorRequest } from "../runtime.js";
import { cliVersionCheck } from "../send-loop/cli-version.js";
import { OPENCODE_ENV } from "./args.js";
import { loadOpencodeModelSources, type OpencodeModelSources, resolveOpencodeModel } from "./models.js";

type Env = Record<string, string | undefined>;

const VERSION_TIMEOUT_MS = 30_000;

/** argv prefix for opencode: the agent's `command`, else `opencode` on PATH. */
export function opencodeCommand(command: string[] | undefined): string[] {
  return command !== undefined && command.length > 0 ? command : ["opencode"];
}

/** Provider ids with credentials saved by `opencode auth login` (`$XDG_DATA_HOME/opencode/auth.json`). */
function authFileProviders(env: Env): { file: string; ids: Set<string> } {
  const base = env.XDG_DATA_HOME || path.join(env.HOME || os.homedir(), ".local/share");
  const file = path.join(base, "opencode", "auth.json");
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return { file, ids: new Set(typeof parsed === "object" && parsed !== null ? Object.keys(parsed) : []) };
  } catch {
    return { file, ids: new Set() };
  }
}

/** The credential check for `provider`: a config apiKey, an auth.json entry, or a key variable set. */
export function credentialCheck(provider: string, sources: OpencodeModelSources, env: Env): RuntimeCheck {
  const configured = sources.config.providers.get(provider);
  if (configured?.hasApiKey)
    return {
      ok: true,
      item: "credentials",
      detail: `provider.${provider}.options.apiKey is set in ${configured.files.join(", ")}`,
    };
  const auth = authFileProviders(env);
  if (auth.ids.has(provider))
    return { ok: true, item: "credentials", detail: `${provider} has credentials in ${auth.file}` };
  const names = sources.catalog()?.providers.get(provider)?.env ?? [];
  const set = names.find((name) => (env[name] ?? "") !== "");
  if (set !== undefined) return { ok: true, item: set, detail: `set (key variable of provider ${provider})` };
  if (names.length === 0) {
    const detail = `provider ${provider} names no key variable and has no apiKey in config (fine for a local endpoint)`;
    return { ok: true, item: "credentials", detail };
  }
  return {
    ok: false,
    item: names.join(" | "),
    detail: `none of ${names.join(", ")} is set, provider.${provider}.options.apiKey is not in config, and ${auth.file} has no ${provider} entry; set ${names.join(" or ")} in the agent's env, or run \`opencode auth login\``,
  };
}

/**
 * No model named and no default in config: opencode picks one among the providers with credentials. A
 * warning when none has any (no auth.json entry, no apiKey in config, no catalog key variable set),
 * naming what to set; some providers need no key, so it is not a problem. Never throws.
 */
export function anyCredentialCheck(sources: OpencodeModelSources, env: Env): RuntimeCheck {
  const configured = [...sources.config.providers].find(([, provider]) => provider.hasApiKey);
  if (configured !== undefined)
    return { ok: true, item: "credentials", detail: `provider.${configured[0]}.options.apiKey is set` };
  const auth = authFileProviders(env);
  if (auth.ids.size > 0)
    return { ok: true, item: "credentials", detail: `${[...auth.ids].join(", ")} in ${auth.file}` };
  const providers = [...(sources.catalog()?.providers ?? new Map<string, { env: string[] }>())];
  const found = providers.find(([, provider]) => provider.env.some((name) => (env[name] ?? "") !== ""));
  if (found !== undefined) return { ok: true, item: "credentials", detail: `${found[0]}: key variable set` };
  return {
    ok: true,
    warning: true,
    item: "credentials",
    detail: `no provider has credentials (no key variable set, no apiKey in config, nothing in ${auth.file}), so opencode's default model may have none; set ANTHROPIC_API_KEY, OPENAI_API_KEY or another provider's key variable in the agent's env, name a model, or run \`opencode auth login\``,
  };
}

function modelChecks(request: RuntimeDoctorRequest, sources: OpencodeModelSources, env: Env): RuntimeCheck[] {
  const checks: RuntimeCheck[] = sources.config.problems.map((problem) => ({
    ok: false,
    item: "opencode config",
    detail: problem,
  }));
  const resolved = resolveOpencodeModel(request.model, sources);
  if (!resolved.ok) return [...checks, { ok: false, item: "model", detail: resolved.error }];
  const label = resolved.model ?? "(opencode's default)";
  checks.push({ ok: true, item: "model", detail: `${label}: ${resolved.source}` });
  const chosen = resolved.model ?? sources.config.defaultModel;
  const provider = chosen?.includes("/") ? chosen.slice(0, chosen.indexOf("/")) : null;
  checks.push(provider !== null ? credentialCheck(provider, sources, env) : anyCredentialCheck(sources, env));
  return checks;
}

/** Doctor checks for one opencode agent. Never throws. */
export async function doctorOpencode(request: RuntimeDoctorRequest): Promise<RuntimeCheck[]> {
  try {
    const command = opencodeCommand(request.command);
    const env: Env = { ...process.env, ...OPENCODE_ENV, ...request.env };
    const program = command[0] ?? "opencode";
    const binary = findExecutable(program, { cwd: request.cwd, env });
    if (binary === null)
      return [
        { ok: false, item: "binary", detail: `${program} not found (on PATH or relative to ${request.cwd})` },
      ];
    const version = await cliVersionCheck(command, {
      cwd: request.cwd,
      env: env,
      timeoutMs: VERSION_TIMEOUT_MS,
    });
    const sources = loadOpencodeModelSources(request.cwd, env, binary);
    return [{ ok: true, item: "binary", detail: binary }, version, ...modelChecks(request, sources, env)];
  } catch (error) {
    return [{ ok: false, item: "doctor", detail: `opencode checks failed: ${(error as Error).message}` }];
  }
}
