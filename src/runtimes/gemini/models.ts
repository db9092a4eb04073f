/**
 * Model resolution for the gemini runtime without running the CLI: the installed gemini-cli's own
 * model catalog (`modelDefinitions` and the same-named chat aliases of `DEFAULT_MODEL_CONFIGS`, read
 * once from its bundle and cached by package path, version and mtime) plus the models the user
 * declared in gemini's settings (`modelConfigs.customAliases`, `modelConfigs.modelDefinitions`,
 * `model.name`).
 */

import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";
import { type GeminiEnv, geminiSetting, geminiSettingKeys } from "./settings.js";

/** The installed `@google/gemini-cli` package a command runs. */
export interface GeminiPackage {
  /** Absolute package folder (holds package.json). */
  dir: string;
  version: string;
  /** The resolved executable that was found. */
  executable: string;
}

const PACKAGE_NAME = "@google/gemini-cli";

function packageAbove(file: string): { dir: string; version: string } | null {
  let dir = path.dirname(file);
  for (let depth = 0; depth < 5; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === PACKAGE_NAME) return { dir, version: String(manifest.version ?? "") };
    } catch {
      // No manifest here: keep walking up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/**
 * The gemini-cli package behind `command` (default `gemini` on PATH): the first argv element that is
 * a file inside a `@google/gemini-cli` package, symlinks resolved. Null when none is. Never throws.
 */
export function locateGeminiPackage(
  command: string[] | undefined,
  cwd: string,
  env: GeminiEnv,
): GeminiPackage | null {
  const argv = command && command.length > 0 ? command : ["gemini"];
  const program = findExecutable(argv[0] ?? "gemini", { cwd, env });
  const candidates = [program, ...argv.slice(1).map((arg) => path.resolve(cwd, arg))];
  for (const candidate of candidates) {
    if (candidate === null || !existsSync(candidate)) continue;
    try {
      const found = packageAbove(realpathSync(candidate));
      if (found) return { ...found, executable: program ?? candidate };
    } catch {
      // Unreadable path: try the next argument.
    }
  }
  return null;
}

const catalogCache = new Map<string, string[] | null>();

/** Top-level keys of the object literal whose `{` ends the line at `start` (2-space bundle style). */
function objectKeys(source: string, start: number): string[] {
  const keys: string[] = [];
  const lines = source.slice(start, start + 20_000).split("\n");
  for (const line of lines.slice(1)) {
    if (/^ {2}\}/.test(line)) break;
    const key = /^ {4}(?:"([^"]+)"|([A-Za-z_][\w-]*)): \{/.exec(line);
    const name = key?.[1] ?? key?.[2];
    if (name) keys.push(name);
  }
  return keys;
}

/** Model names from one bundle file's `DEFAULT_MODEL_CONFIGS`, or null when it has none. */
export function modelsFromBundleSource(source: string): string[] | null {
  const configs = source.indexOf("var DEFAULT_MODEL_CONFIGS = {");
  if (configs === -1) return null;
  const definitions = source.indexOf("  modelDefinitions: {", configs);
  if (definitions === -1) return null;
  const models = new Set(objectKeys(source, definitions));
  // Chat aliases named after their own model (`"gemini-2.5-flash": { … model: "gemini-2.5-flash" }`).
  const aliasBlock = source.slice(configs, definitions);
  for (const match of aliasBlock.matchAll(
    /\n {4}"([\w.-]+)": \{\n {6}extends: "[^"]+",\n {6}modelConfig: \{\n {8}model: "([\w.-]+)"/g,
  )) {
    if (match[1] === match[2] && match[1]) models.add(match[1]);
  }
  return models.size > 0 ? [...models] : null;
}

/**
 * The model names the installed CLI ships, read from its bundle (largest files first, where the core
 * lives) and cached per package path, version and package.json mtime. Null when the bundle has no
 * recognizable catalog. Never throws.
 */
export function geminiModelCatalog(pkg: GeminiPackage): string[] | null {
  let key: string;
  try {
    key = `${pkg.dir}\0${pkg.version}\0${statSync(path.join(pkg.dir, "package.json")).mtimeMs}`;
  } catch {
    return null;
  }
  const cached = catalogCache.get(key);
  if (cached !== undefined) return cached;
  let catalog: string[] | null = null;
  try {
    const bundle = path.join(pkg.dir, "bundle");
    const files = readdirSync(bundle)
      .filter((name) => name.endsWith(".js"))
      .map((name) => ({ file: path.join(bundle, name), size: statSync(path.join(bundle, name)).size }))
      .sort((a, b) => b.size - a.size);
    for (const { file } of files) {
      catalog = modelsFromBundleSource(readFileSync(file, "utf8"));
      if (catalog) break;
    }
  } catch {
    catalog = null;
  }
  catalogCache.set(key, catalog);
  return catalog;
}

/** How a model setting turned out: the argv to pass, or why it is unknown. */
export type GeminiModelResolution =
  | { ok: true; args: string[]; note?: string }
  | { ok: false; message: string };

/**
 * Resolves `model` for a call in `cwd`: `""` passes no `-m` (gemini's own default: `model.name`,
 * `GEMINI_MODEL`, else its `auto` router); a name in the CLI catalog or the user's gemini settings
 * gets `-m`; anything else is unknown. When the catalog cannot be read, the name passes through with
 * a note. Never throws.
 */
export function resolveGeminiModel(
  model: string,
  pkg: GeminiPackage | null,
  env: GeminiEnv,
  cwd: string,
): GeminiModelResolution {
  if (model === "") return { ok: true, args: [] };
  const args = ["-m", model];
  const catalog = pkg === null ? null : geminiModelCatalog(pkg);
  if (catalog === null) {
    const where = pkg === null ? "the gemini-cli package was not found" : `no model catalog in ${pkg.dir}`;
    return { ok: true, args, note: `cannot check gemini model "${model}" (${where}); passing it through` };
  }
  const declared = [
    ...geminiSettingKeys(env, cwd, ["modelConfigs", "customAliases"]),
    ...geminiSettingKeys(env, cwd, ["modelConfigs", "modelDefinitions"]),
  ];
  const defaultModel = geminiSetting(env, cwd, ["model", "name"]);
  if (typeof defaultModel === "string") declared.push(defaultModel);
  if (catalog.includes(model) || declared.includes(model)) return { ok: true, args };
  return {
    ok: false,
    message:
      `unknown gemini model "${model}": not in the model catalog of gemini-cli ${pkg?.version} ` +
      `(${catalog.join(", ")}) nor declared in gemini's settings.json (modelConfigs.customAliases, ` +
      'modelConfigs.modelDefinitions or model.name); use one of those, or "" for gemini\'s default',
  };
}
