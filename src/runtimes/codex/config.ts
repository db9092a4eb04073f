/**
 * What sssf reads of codex's own configuration: where `CODEX_HOME` is, and the few `config.toml`
 * string keys that decide model resolution (model, model_provider, model_catalog_json, provider env
 * keys). A line reader, not a TOML parser: it understands `[table]` headers and `key = "string"`
 * assignments, which is all these keys ever are.
 */

import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** The environment a codex process sees: `process.env` overlaid with the agent's `env`. */
export type CodexEnv = Record<string, string | undefined>;

/** The subset of `$CODEX_HOME/config.toml` sssf needs, with the active profile applied. */
export interface CodexConfig {
  /** `$CODEX_HOME`, or `~/.codex`. */
  home: string;
  file: string;
  exists: boolean;
  /** The file's mtime (ms), or null when it does not exist. */
  mtimeMs: number | null;
  /** `model`: codex's default model when sssf passes none. */
  model: string | undefined;
  /** `model_provider`, default `openai`. */
  modelProvider: string;
  /** `model_catalog_json`, absolute: a catalog that replaces codex's own. */
  modelCatalogJson: string | undefined;
  /** `openai_base_url`: the built-in openai provider pointed at another endpoint. */
  openaiBaseUrl: string | undefined;
  /** `[model_providers.<id>]` string keys (`env_key`, `base_url`, …) of the selected provider. */
  provider: Record<string, string>;
}

/** `$CODEX_HOME`, else `$HOME/.codex`, as codex itself resolves it. Never throws. */
export function codexHome(env: CodexEnv): string {
  const explicit = env.CODEX_HOME;
  if (explicit !== undefined && explicit !== "") return path.resolve(explicit);
  return path.join(env.HOME || homedir(), ".codex");
}

/** `"…"` (basic, with escapes) or `'…'` (literal) at the start of `text`, else undefined. */
function tomlString(text: string): string | undefined {
  const basic = /^"((?:[^"\\]|\\.)*)"/.exec(text);
  if (basic) {
    try {
      return JSON.parse(`"${basic[1]}"`) as string;
    } catch {
      return basic[1];
    }
  }
  const literal = /^'([^']*)'/.exec(text);
  return literal ? literal[1] : undefined;
}

/** `a."b.c".d` → `a.b.c.d` with quotes dropped (good enough to name provider tables). */
const tableName = (raw: string): string =>
  raw
    .trim()
    .split(/\.(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .map((part) => part.trim().replace(/^["']|["']$/g, ""))
    .join(".");

/**
 * Every `key = "string"` assignment of a TOML text, grouped by table (`""` is the root). Other value
 * types and array tables are skipped. Never throws.
 */
export function readTomlStrings(text: string): Map<string, Record<string, string>> {
  const tables = new Map<string, Record<string, string>>([["", {}]]);
  let current: Record<string, string> | null = tables.get("") ?? null;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("[[")) {
      current = null;
      continue;
    }
    const header = /^\[([^\]]+)\]\s*(#.*)?$/.exec(line);
    if (header) {
      const name = tableName(header[1] ?? "");
      current = tables.get(name) ?? {};
      tables.set(name, current);
      continue;
    }
    const assignment = /^([A-Za-z0-9_-]+|"[^"]+")\s*=\s*(.*)$/.exec(line);
    if (!assignment || current === null) continue;
    const value = tomlString(assignment[2] ?? "");
    if (value !== undefined) current[(assignment[1] ?? "").replace(/"/g, "")] = value;
  }
  return tables;
}

/**
 * Reads `$CODEX_HOME/config.toml` (root keys, overlaid by `[profiles.<profile>]` when `profile` is
 * set). A missing or unreadable file gives codex's defaults. Never throws.
 */
export function readCodexConfig(env: CodexEnv): CodexConfig {
  const home = codexHome(env);
  const file = path.join(home, "config.toml");
  let text = "";
  let mtimeMs: number | null = null;
  try {
    mtimeMs = statSync(file).mtimeMs;
    text = readFileSync(file, "utf8");
  } catch {
    mtimeMs = null;
  }
  const tables = readTomlStrings(text);
  const root = tables.get("") ?? {};
  const profile = root.profile === undefined ? {} : (tables.get(`profiles.${root.profile}`) ?? {});
  const pick = (key: string): string | undefined => profile[key] ?? root[key];
  const modelProvider = pick("model_provider") ?? "openai";
  const catalog = pick("model_catalog_json");
  return {
    home,
    file,
    exists: mtimeMs !== null,
    mtimeMs,
    model: pick("model"),
    modelProvider,
    modelCatalogJson: catalog === undefined ? undefined : path.resolve(home, catalog),
    openaiBaseUrl: pick("openai_base_url"),
    provider: tables.get(`model_providers.${modelProvider}`) ?? {},
  };
}

/**
 * Whether requests go somewhere other than OpenAI's own API, whose model list codex's catalog
 * describes: a custom `model_provider`, or the openai provider moved by `openai_base_url`. Such
 * endpoints serve model names codex cannot know in advance. (codex 0.171 ignores `OPENAI_BASE_URL`.)
 */
export function usesCustomEndpoint(config: CodexConfig): boolean {
  return config.modelProvider !== "openai" || (config.openaiBaseUrl ?? "") !== "";
}
