/**
 * pi's side of the fake: an agent dir (`$PI_CODING_AGENT_DIR`) whose `models.json` has a provider
 * `fake` at the server and whose `settings.json` makes `fake/fake-model` the default with retries off,
 * plus a scratch HOME so the user's ~/.pi, ~/.claude, ~/.codex… are never read or written. Shared by
 * `sssf demo`, `sssf fake-model`, `sssf run --fake-script` and `startFakeModelRun`.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The provider pi's agent dir names the fake model server. */
export const FAKE_PI_PROVIDER = "fake";
/** The model id the fake provider offers (it is also listed by `GET …/models`). */
export const FAKE_PI_MODEL_ID = "fake-model";
/** A second model of the fake provider, for a model ladder or a fallback (`fake/fake-model-strong`). */
export const FAKE_PI_STRONG_MODEL_ID = "fake-model-strong";
/** What to pass to `pi --model` (or an agent's `model:`): the default of the agent dir anyway. */
export const FAKE_PI_MODEL = `${FAKE_PI_PROVIDER}/${FAKE_PI_MODEL_ID}`;
/** Per-million-token prices of the fake model, so a trace shows a non-zero cost. */
export const FAKE_PI_PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/**
 * Writes `models.json` and `settings.json` into `agentDir` (created with its parents; the two files
 * are replaced, anything else there is left alone). Throws on a file system error.
 *
 * @example
 * writePiAgentDir("/tmp/pi-agent", fake.url);
 * // PI_CODING_AGENT_DIR=/tmp/pi-agent pi -p "hello"   (model fake/fake-model)
 */
export function writePiAgentDir(agentDir: string, fakeUrl: string): void {
  mkdirSync(agentDir, { recursive: true });
  const models = {
    providers: {
      [FAKE_PI_PROVIDER]: {
        baseUrl: `${fakeUrl}/v1`,
        api: "openai-completions",
        apiKey: "sk-fake",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [FAKE_PI_MODEL_ID, FAKE_PI_STRONG_MODEL_ID].map((id) => ({
          id,
          contextWindow: 128000,
          maxTokens: 4096,
          cost: FAKE_PI_PRICES,
        })),
      },
    },
  };
  writeFileSync(path.join(agentDir, "models.json"), `${JSON.stringify(models, null, 2)}\n`);
  // Retries off: a request the script does not foresee fails at once instead of after pi's backoff.
  const settings = {
    defaultProvider: FAKE_PI_PROVIDER,
    defaultModel: FAKE_PI_MODEL_ID,
    quietStartup: true,
    retry: { enabled: false, provider: { maxRetries: 0 } },
  };
  writeFileSync(path.join(agentDir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
}

/** pi's agent dir and a scratch HOME under one root, and the variables that point an agent at them. */
export interface FakePiWorld {
  agentDir: string;
  home: string;
  /** `PI_CODING_AGENT_DIR`, `HOME` and the `XDG_*` folders inside it (no proxy or base-URL variables). */
  env: Record<string, string>;
}

/**
 * Writes `<root>/pi-agent` (see `writePiAgentDir`) and a scratch `<root>/home` with its XDG folders.
 * Throws on a file system error.
 */
export function writeFakePiWorld(root: string, fakeUrl: string): FakePiWorld {
  const agentDir = path.join(root, "pi-agent");
  const home = path.join(root, "home");
  const xdg = { XDG_CONFIG_HOME: ".config", XDG_DATA_HOME: ".local/share", XDG_CACHE_HOME: ".cache" };
  for (const dir of [home, ...Object.values(xdg).map((sub) => path.join(home, sub))]) {
    mkdirSync(dir, { recursive: true });
  }
  writePiAgentDir(agentDir, fakeUrl);
  const env: Record<string, string> = {
    PI_CODING_AGENT_DIR: agentDir,
    HOME: home,
    ...Object.fromEntries(Object.entries(xdg).map(([name, sub]) => [name, path.join(home, sub)])),
  };
  return { agentDir, home, env };
}
