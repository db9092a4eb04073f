/**
 * Read-only access to gemini-cli's own settings files, as the CLI would find them for one call: the
 * system defaults, the user's `~/.gemini/settings.json` (or `$GEMINI_CLI_HOME/.gemini`), the project's
 * `.gemini/settings.json` and the system overrides. sssf never writes them.
 */

import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The environment a gemini call sees (process env overlaid with the agent's). */
export type GeminiEnv = Record<string, string | undefined>;

/** `<home>/.gemini`, where gemini keeps user settings, sessions and policies. Never throws. */
export function geminiUserDir(env: GeminiEnv): string {
  const home = env.GEMINI_CLI_HOME || env.HOME || os.homedir();
  return path.join(home, ".gemini");
}

/** The settings files gemini reads for a call in `cwd`, lowest precedence first. Never throws. */
export function geminiSettingsFiles(env: GeminiEnv, cwd: string): string[] {
  const system = env.GEMINI_CLI_SYSTEM_SETTINGS_PATH || "/etc/gemini-cli/settings.json";
  const defaults =
    env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH || path.join(path.dirname(system), "system-defaults.json");
  return [
    defaults,
    path.join(geminiUserDir(env), "settings.json"),
    path.join(cwd, ".gemini", "settings.json"),
    system,
  ];
}

/** JSON with `//` and `/* *\/` comments (what gemini accepts) to plain JSON; strings are kept. */
export function stripJsonComments(text: string): string {
  let out = "";
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out += text.slice(index, end + 1);
      index = end + 1;
    } else if (char === "/" && text[index + 1] === "/") {
      const end = text.indexOf("\n", index);
      index = end === -1 ? text.length : end;
    } else if (char === "/" && text[index + 1] === "*") {
      const end = text.indexOf("*/", index + 2);
      index = end === -1 ? text.length : end + 2;
    } else {
      out += char;
      index += 1;
    }
  }
  return out;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** One settings file as an object; `{}` when missing or unreadable. Never throws. */
export function readGeminiSettingsFile(file: string): Record<string, unknown> {
  try {
    return asRecord(JSON.parse(stripJsonComments(readFileSync(file, "utf8"))));
  } catch {
    return {};
  }
}

/** The value at `keys` in every settings file that sets it, lowest precedence first. Never throws. */
export function geminiSettingValues(env: GeminiEnv, cwd: string, keys: readonly string[]): unknown[] {
  const values: unknown[] = [];
  for (const file of geminiSettingsFiles(env, cwd)) {
    let value: unknown = readGeminiSettingsFile(file);
    for (const key of keys) value = asRecord(value)[key];
    if (value !== undefined) values.push(value);
  }
  return values;
}

/** The effective value at `keys` (the highest-precedence file that sets it), or undefined. */
export function geminiSetting(env: GeminiEnv, cwd: string, keys: readonly string[]): unknown {
  return geminiSettingValues(env, cwd, keys).at(-1);
}

/** The keys of the object at `keys`, across every settings file. Never throws. */
export function geminiSettingKeys(env: GeminiEnv, cwd: string, keys: readonly string[]): string[] {
  return geminiSettingValues(env, cwd, keys).flatMap((value) => Object.keys(asRecord(value)));
}
