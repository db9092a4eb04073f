/**
 * `sssf doctor` for a claude_code agent: the binary and its version, the model name, and where the
 * credentials come from (variable names and file paths only, never values). Runs `claude --version`
 * once; never a model request.
 */

import { existsSync } from "node:fs";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";
import type { RuntimeCheck, RuntimeDoctorRequest } from "../runtime.js";
import { cliVersionCheck } from "../send-loop/cli-version.js";
import {
  CLAUDE_ENV,
  CLAUDE_MODEL_ALIASES,
  CLAUDE_PACKAGE,
  CLAUDE_TESTED_VERSION,
  claudeCommand,
  validateClaudeCodeSettings,
} from "./args.js";
import { claudeConfigDir } from "./session.js";

const VERSION_TIMEOUT_MS = 30_000;

/** What claude will do with the agent's model name. */
export function claudeModelCheck(model: string): RuntimeCheck {
  const problem = validateClaudeCodeSettings({ model, tools: [] })[0];
  if (problem !== undefined) return { ok: false, item: "model", detail: problem.message };
  let detail: string;
  if (model === "")
    detail = "claude's default (settings.json `model`, ANTHROPIC_MODEL, or its built-in choice)";
  else if (CLAUDE_MODEL_ALIASES.includes(model)) detail = `${model} (an alias claude resolves itself)`;
  else if (model.startsWith("claude-")) detail = `${model} (sent to the endpoint as is)`;
  else {
    detail = `${model} is not a name claude knows; it is sent to the endpoint as is (a gateway may serve it), and a send fails with model_unknown if the endpoint does not`;
  }
  return { ok: true, item: "model", detail };
}

const KEY_VARIABLES = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"];
const PROVIDER_SWITCHES = ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"];

/** Which credential source claude would use, by variable name or file path. */
export function claudeCredentialCheck(env: Record<string, string | undefined>): RuntimeCheck {
  const isSet = (name: string) => (env[name] ?? "") !== "";
  const endpoint = isSet("ANTHROPIC_BASE_URL") ? " (endpoint from ANTHROPIC_BASE_URL)" : "";
  const key = KEY_VARIABLES.find(isSet);
  if (key !== undefined) return { ok: true, item: key, detail: `set${endpoint}` };
  const provider = PROVIDER_SWITCHES.find(isSet);
  if (provider !== undefined)
    return { ok: true, item: provider, detail: "set: claude uses that provider's own credentials" };
  const login = path.join(claudeConfigDir(env), ".credentials.json");
  if (existsSync(login)) return { ok: true, item: "credentials", detail: `claude login found at ${login}` };
  if (process.platform === "darwin") {
    return {
      ok: true,
      item: "credentials",
      detail: "no key variable set; claude may use a login kept in the macOS keychain",
    };
  }
  return {
    ok: false,
    item: "credentials",
    detail: `none of ${[...KEY_VARIABLES, ...PROVIDER_SWITCHES].join(", ")} is set and there is no login at ${login}; set ANTHROPIC_API_KEY in the agent's env or run \`claude auth login\``,
  };
}

/** Checks for one claude_code agent. Never throws. */
export async function doctorClaudeCode(request: RuntimeDoctorRequest): Promise<RuntimeCheck[]> {
  try {
    const command = claudeCommand(request.command);
    const env = { ...process.env, ...CLAUDE_ENV, ...request.env };
    const binary = findExecutable(command[0] ?? "", { cwd: request.cwd, env });
    if (binary === null) {
      const hint = `install ${CLAUDE_PACKAGE}, or set the agent's command: [path/to/claude]`;
      return [
        {
          ok: false,
          item: "binary",
          detail: `${command[0]} not found (on PATH or relative to ${request.cwd}); ${hint}`,
        },
      ];
    }
    return [
      { ok: true, item: "binary", detail: binary },
      await cliVersionCheck(command, {
        cwd: request.cwd,
        env,
        timeoutMs: VERSION_TIMEOUT_MS,
        tested: CLAUDE_TESTED_VERSION,
      }),
      claudeModelCheck(request.model),
      claudeCredentialCheck(env),
    ];
  } catch (error) {
    return [{ ok: false, item: "claude_code", detail: `doctor failed: ${(error as Error).message}` }];
  }
}
