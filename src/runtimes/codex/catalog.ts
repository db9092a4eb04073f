/**
 * codex's model catalog, as the codex being run sees it: the catalog bundled in its binary (read once
 * with `codex debug models --bundled` and cached on disk, keyed by the binary's files), overlaid by
 * `$CODEX_HOME/models_cache.json`; or, when config.toml sets `model_catalog_json`, that file alone
 * (codex replaces its catalog with it).
 */

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { findExecutable } from "../../util/find-executable.js";
import type { CodexConfig, CodexEnv } from "./config.js";

/** One catalog entry; only the fields sssf reads are typed, the rest is kept as is. */
export interface CodexModelEntry {
  slug: string;
  supported_reasoning_levels?: { effort: string }[];
  apply_patch_tool_type?: string | null;
  [field: string]: unknown;
}

/** The models codex knows and where that list came from (for error messages). */
export interface CodexCatalog {
  models: CodexModelEntry[];
  sources: string[];
}

const CATALOG_TIMEOUT_MS = 30_000;
const memo = new Map<string, Promise<CodexModelEntry[]>>();

/** The `models` array of a catalog JSON text; throws on anything else. */
function parseModels(text: string, origin: string): CodexModelEntry[] {
  const parsed = JSON.parse(text) as { models?: unknown };
  if (!Array.isArray(parsed.models)) throw new Error(`${origin} has no "models" array`);
  return parsed.models.filter(
    (entry): entry is CodexModelEntry =>
      typeof entry === "object" && entry !== null && typeof (entry as { slug?: unknown }).slug === "string",
  );
}

/** A key that changes whenever any file of the codex command changes (reinstall, upgrade). */
function binaryKey(command: string[], cwd: string, env: CodexEnv): string {
  const parts: string[] = [JSON.stringify(command)];
  const files = [findExecutable(command[0] ?? "", { cwd, env }), ...command.slice(1)];
  for (const file of files) {
    if (file === null) continue;
    try {
      const real = realpathSync(path.resolve(cwd, file));
      const stat = statSync(real);
      parts.push(`${real}:${stat.size}:${stat.mtimeMs}`);
    } catch {
      // Plain arguments are not files.
    }
  }
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 24);
}

function cacheFile(env: CodexEnv, key: string): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), ".cache");
  return path.join(base, "sssf", `codex-catalog-${key}.json`);
}

function spawnBundled(command: string[], cwd: string, env: CodexEnv): Promise<string> {
  const [program = "codex", ...prefix] = command;
  return new Promise((resolve, reject) => {
    execFile(
      program,
      [...prefix, "debug", "models", "--bundled"],
      {
        cwd,
        env: { ...process.env, ...env, RUST_BACKTRACE: "0" },
        timeout: CATALOG_TIMEOUT_MS,
        killSignal: "SIGKILL",
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(
              `\`${command.join(" ")} debug models --bundled\` failed: ${error.message} ${stderr}`.trim(),
            ),
          );
        else resolve(stdout);
      },
    );
  });
}

async function loadBundled(command: string[], cwd: string, env: CodexEnv): Promise<CodexModelEntry[]> {
  const file = cacheFile(env, binaryKey(command, cwd, env));
  try {
    return parseModels(readFileSync(file, "utf8"), file);
  } catch {
    // Not cached yet (or unreadable): ask the binary once.
  }
  const text = await spawnBundled(command, cwd, env);
  const models = parseModels(text, "codex debug models --bundled");
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch {
    // An unwritable cache only costs one more spawn next run.
  }
  return models;
}

/**
 * The catalog codex would use for `config`. Rejects (with a message naming the command) only when
 * the bundled catalog cannot be read; a missing or broken `models_cache.json` is skipped.
 */
export async function loadCodexCatalog(
  command: string[],
  cwd: string,
  env: CodexEnv,
  config: CodexConfig,
): Promise<CodexCatalog> {
  if (config.modelCatalogJson !== undefined) {
    const file = config.modelCatalogJson;
    return { models: parseModels(readFileSync(file, "utf8"), file), sources: [`model_catalog_json ${file}`] };
  }
  const key = `${binaryKey(command, cwd, env)}:${cacheFile(env, "")}`;
  let bundled = memo.get(key);
  if (bundled === undefined) {
    bundled = loadBundled(command, cwd, env);
    memo.set(key, bundled);
    bundled.catch(() => memo.delete(key));
  }
  const bySlug = new Map((await bundled).map((entry) => [entry.slug, entry]));
  const sources = ["the catalog bundled with codex (`codex debug models --bundled`)"];
  const remote = path.join(config.home, "models_cache.json");
  try {
    for (const entry of parseModels(readFileSync(remote, "utf8"), remote)) bySlug.set(entry.slug, entry);
    sources.push(remote);
  } catch {
    // codex only writes models_cache.json after refreshing the list from OpenAI.
  }
  return { models: [...bySlug.values()], sources };
}

/** The entry for `slug`, or null when codex would fall back to generic metadata. */
export function catalogEntry(catalog: CodexCatalog | null, slug: string | undefined): CodexModelEntry | null {
  if (catalog === null || slug === undefined || slug === "") return null;
  return catalog.models.find((entry) => entry.slug === slug) ?? null;
}

/**
 * Writes a catalog without the apply_patch tool (every entry's `apply_patch_tool_type` nulled) for
 * `-c model_catalog_json=…`: codex has no other switch that removes apply_patch. Returns the file.
 * Throws when the file cannot be written.
 */
export function writeCatalogWithoutApplyPatch(file: string, models: CodexModelEntry[]): string {
  const stripped = models.map((entry) => ({ ...entry, apply_patch_tool_type: null }));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ models: stripped }));
  return file;
}
