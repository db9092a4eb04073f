/**
 * Where pi would find a provider's credentials, checked by name only (never reading a value): a
 * models.json `apiKey`, an entry in `<agentDir>/auth.json` (written by pi's /login), or the
 * provider's API-key environment variables.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import type { RuntimeCheck } from "../runtime.js";
import type { PiModelCatalog } from "./models.js";

/** API-key variables pi 0.73.1 reads per built-in provider (first match wins). */
const PROVIDER_KEY_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  anthropic: ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
  "github-copilot": ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
  openai: ["OPENAI_API_KEY"],
  "azure-openai-responses": ["AZURE_OPENAI_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY"],
  google: ["GEMINI_API_KEY"],
  "google-vertex": ["GOOGLE_CLOUD_API_KEY"],
  groq: ["GROQ_API_KEY"],
  cerebras: ["CEREBRAS_API_KEY"],
  xai: ["XAI_API_KEY"],
  openrouter: ["OPENROUTER_API_KEY"],
  "vercel-ai-gateway": ["AI_GATEWAY_API_KEY"],
  zai: ["ZAI_API_KEY"],
  mistral: ["MISTRAL_API_KEY"],
  minimax: ["MINIMAX_API_KEY"],
  "minimax-cn": ["MINIMAX_CN_API_KEY"],
  moonshotai: ["MOONSHOT_API_KEY"],
  "moonshotai-cn": ["MOONSHOT_API_KEY"],
  huggingface: ["HF_TOKEN"],
  fireworks: ["FIREWORKS_API_KEY"],
  opencode: ["OPENCODE_API_KEY"],
  "opencode-go": ["OPENCODE_API_KEY"],
  "kimi-coding": ["KIMI_API_KEY"],
  "cloudflare-workers-ai": ["CLOUDFLARE_API_KEY"],
  "cloudflare-ai-gateway": ["CLOUDFLARE_API_KEY"],
  xiaomi: ["XIAOMI_API_KEY"],
  "xiaomi-token-plan-cn": ["XIAOMI_TOKEN_PLAN_CN_API_KEY"],
  "xiaomi-token-plan-ams": ["XIAOMI_TOKEN_PLAN_AMS_API_KEY"],
  "xiaomi-token-plan-sgp": ["XIAOMI_TOKEN_PLAN_SGP_API_KEY"],
};

// A models.json apiKey that looks like a variable name is read from the environment by pi.
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

function authJsonProviders(agentDir: string): string[] {
  try {
    const value: unknown = JSON.parse(readFileSync(path.join(agentDir, "auth.json"), "utf8"));
    return typeof value === "object" && value !== null ? Object.keys(value) : [];
  } catch {
    return [];
  }
}

const isSet = (env: Record<string, string | undefined>, name: string): boolean => (env[name] ?? "") !== "";

/** One check of `provider`'s credentials, by variable or file name only. Never throws. */
export function piCredentialCheck(
  provider: string,
  catalog: PiModelCatalog,
  env: Record<string, string | undefined>,
): RuntimeCheck {
  const apiKey = catalog.customProviders.get(provider)?.apiKey;
  if (apiKey !== undefined) {
    if (apiKey.startsWith("!")) {
      return {
        ok: true,
        item: "models.json apiKey",
        detail: `${provider}: a command gives the key (not run)`,
      };
    }
    if (ENV_NAME.test(apiKey) && !isSet(env, apiKey)) {
      // pi would send the name itself as the key: almost surely a missing variable.
      return {
        ok: false,
        item: apiKey,
        detail: `${provider}: models.json names ${apiKey}, which is not set`,
      };
    }
    const detail = ENV_NAME.test(apiKey) ? `${provider}: set` : `${provider}: key given in models.json`;
    return { ok: true, item: ENV_NAME.test(apiKey) ? apiKey : "models.json apiKey", detail };
  }
  if (authJsonProviders(catalog.agentDir).includes(provider)) {
    return { ok: true, item: "auth.json", detail: `${provider}: credentials stored by pi /login` };
  }
  const names = PROVIDER_KEY_VARIABLES[provider];
  if (names === undefined) {
    return {
      ok: true,
      item: "credentials",
      detail: `${provider}: not checked (no API-key variable known; pi may use cloud credentials)`,
    };
  }
  const found = names.find((name) => isSet(env, name));
  if (found !== undefined) return { ok: true, item: found, detail: `${provider}: set` };
  return {
    ok: false,
    item: names.join(" | "),
    detail: `${provider}: none set, and no ${provider} entry in ${path.join(catalog.agentDir, "auth.json")}; set ${names.join(" or ")} in the agent's env, or run \`pi\` and \`/login\``,
  };
}

/**
 * With no model named and no default in settings.json, pi takes the first provider with credentials:
 * a warning when no provider has any (no key variable pi knows, no auth.json entry, no models.json
 * apiKey), naming what to set; pi may still find cloud credentials, so it is not a problem. Never throws.
 */
export function piAnyCredentialCheck(
  catalog: PiModelCatalog,
  env: Record<string, string | undefined>,
): RuntimeCheck {
  const custom = [...catalog.customProviders].find(
    ([, provider]) =>
      provider.apiKey !== undefined && (!ENV_NAME.test(provider.apiKey) || isSet(env, provider.apiKey)),
  );
  if (custom !== undefined)
    return { ok: true, item: "credentials", detail: `${custom[0]}: from models.json` };
  const stored = authJsonProviders(catalog.agentDir);
  if (stored.length > 0)
    return { ok: true, item: "auth.json", detail: `${stored.join(", ")}: credentials stored by pi /login` };
  const found = Object.entries(PROVIDER_KEY_VARIABLES).find(([, names]) =>
    names.some((name) => isSet(env, name)),
  );
  if (found !== undefined) return { ok: true, item: "credentials", detail: `${found[0]}: key variable set` };
  return {
    ok: true,
    warning: true,
    item: "credentials",
    detail: `no provider has credentials (no API-key variable set, no ${path.join(catalog.agentDir, "auth.json")}, no apiKey in models.json), so pi's default model has none; set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or another provider's key variable in the agent's env, name a model, or run \`pi\` and \`/login\``,
  };
}
