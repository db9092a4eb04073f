/**
 * opencode's configuration files, found and read as opencode 1.18 does (global dir, OPENCODE_CONFIG,
 * project `opencode.json[c]` up to the worktree, `.opencode/` dirs, OPENCODE_CONFIG_DIR,
 * OPENCODE_CONFIG_CONTENT, /etc/opencode), reduced to what sssf needs: the providers and their models.
 */

import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

type Env = Record<string, string | undefined>;

/** A provider as the config files declare it (merged over all files). */
export interface ConfiguredProvider {
  models: Set<string>;
  /** `options.apiKey` is set in some file (its value is never kept). */
  hasApiKey: boolean;
  /** The files that declare this provider. */
  files: string[];
}

/** Everything sssf read from opencode's config. */
export interface OpencodeConfigView {
  providers: Map<string, ConfiguredProvider>;
  disabledProviders: Set<string>;
  /** `enabled_providers` when some file sets it (then only those count). */
  enabledProviders: Set<string> | null;
  /** Top-level `permission` entries by permission name, last file wins per name. */
  permission: Record<string, unknown>;
  /** The top-level `model` (opencode's default), last file wins. */
  defaultModel: string | null;
  /** Files that exist and were read, in precedence order. */
  files: string[];
  /** Files that exist but could not be parsed, with the reason. */
  problems: string[];
}

/** Strips `//` and `/* *\/` comments and trailing commas (opencode reads JSONC). Never throws. */
export function stripJsonc(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? "";
    if (char === '"') {
      const end = /"(?:[^"\\]|\\.)*"/y;
      end.lastIndex = i;
      const match = end.exec(text);
      const literal = match?.[0] ?? text.slice(i);
      out += literal;
      i += literal.length - 1;
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i += 1;
      out += "\n";
    } else if (char === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close < 0 ? text.length : close + 1;
    } else out += char;
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

/** `$XDG_CONFIG_HOME/opencode`, opencode's global config folder. */
export function opencodeGlobalConfigDir(env: Env): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "opencode");
}

/** The worktree opencode stops its upward search at: the nearest folder with `.git`, else `/`. */
function worktreeOf(cwd: string): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, ".git"))) return dir;
    if (path.dirname(dir) === dir) return dir;
  }
}

/** Folders from `cwd` up to `stop`, outermost first. */
function upwards(cwd: string, stop: string): string[] {
  const dirs: string[] = [];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (dir === stop || path.dirname(dir) === dir) return dirs;
  }
}

const pair = (dir: string) => [path.join(dir, "opencode.json"), path.join(dir, "opencode.jsonc")];

/** Every config source in opencode's precedence order (low to high); `{content}` for the env one. */
export function opencodeConfigSources(cwd: string, env: Env): string[] {
  const global = opencodeGlobalConfigDir(env);
  const sources = [path.join(global, "config.json"), ...pair(global)];
  if (env.OPENCODE_CONFIG) sources.push(path.resolve(cwd, env.OPENCODE_CONFIG));
  const chain = env.OPENCODE_DISABLE_PROJECT_CONFIG ? [] : upwards(cwd, worktreeOf(cwd));
  for (const dir of chain) sources.push(path.join(dir, "opencode.jsonc"), path.join(dir, "opencode.json"));
  for (const dir of chain) sources.push(...pair(path.join(dir, ".opencode")));
  sources.push(...pair(path.join(env.HOME || os.homedir(), ".opencode")));
  if (env.OPENCODE_CONFIG_DIR) sources.push(...pair(env.OPENCODE_CONFIG_DIR));
  sources.push("OPENCODE_CONFIG_CONTENT", ...pair("/etc/opencode"));
  return [...new Set(sources)];
}

function merge(view: OpencodeConfigView, file: string, config: Record<string, unknown>): void {
  const providers = config.provider;
  if (typeof providers === "object" && providers !== null) {
    for (const [id, raw] of Object.entries(providers as Record<string, unknown>)) {
      const entry = (typeof raw === "object" && raw !== null ? raw : {}) as {
        models?: unknown;
        options?: { apiKey?: unknown };
      };
      const known = view.providers.get(id) ?? { models: new Set<string>(), hasApiKey: false, files: [] };
      if (typeof entry.models === "object" && entry.models !== null)
        for (const model of Object.keys(entry.models)) known.models.add(model);
      if (typeof entry.options?.apiKey === "string" && entry.options.apiKey !== "") known.hasApiKey = true;
      known.files.push(file);
      view.providers.set(id, known);
    }
  }
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : null;
  for (const id of strings(config.disabled_providers) ?? []) view.disabledProviders.add(id);
  const enabled = strings(config.enabled_providers);
  if (enabled !== null) view.enabledProviders = new Set(enabled);
  if (typeof config.model === "string" && config.model !== "") view.defaultModel = config.model;
  if (
    typeof config.permission === "object" &&
    config.permission !== null &&
    !Array.isArray(config.permission)
  )
    Object.assign(view.permission, config.permission);
}

/** Reads every existing config source for `cwd` and `env`. Never throws; bad files land in `problems`. */
export function readOpencodeConfig(cwd: string, env: Env): OpencodeConfigView {
  const view: OpencodeConfigView = {
    providers: new Map(),
    disabledProviders: new Set(),
    enabledProviders: null,
    permission: {},
    defaultModel: null,
    files: [],
    problems: [],
  };
  for (const source of opencodeConfigSources(cwd, env)) {
    let text: string | undefined;
    if (source === "OPENCODE_CONFIG_CONTENT") text = env.OPENCODE_CONFIG_CONTENT || undefined;
    else {
      try {
        text = readFileSync(source, "utf8");
      } catch {
        text = undefined;
      }
    }
    if (text === undefined) continue;
    try {
      const parsed = JSON.parse(stripJsonc(text)) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error("not a JSON object");
      view.files.push(source);
      merge(view, source, parsed as Record<string, unknown>);
    } catch (error) {
      view.problems.push(`${source}: ${(error as Error).message}`);
    }
  }
  return view;
}
