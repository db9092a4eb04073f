/**
 * The models pi knows, read the way pi reads them but without running it: the built-in catalog it
 * ships (`@mariozechner/pi-ai`'s generated table) plus `models.json` in pi's agent dir. `resolvePiModel`
 * turns an agent's `model` into the exact `provider/id` sssf passes to `pi --model`.
 */

import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { PiInstall } from "./install.js";

/** One model pi can run. */
export interface PiModelRef {
  provider: string;
  id: string;
}

/** What pi would offer for `--model`, and where it came from. */
export interface PiModelCatalog {
  agentDir: string;
  modelsFile: string;
  /** The built-in table that was read, or null when it could not be found next to the binary. */
  builtinFile: string | null;
  models: PiModelRef[];
  /** Providers declared in models.json, with their `apiKey` setting (a literal, env name or `!command`). */
  customProviders: Map<string, { apiKey?: string }>;
  /** Why models.json (or the built-in table) could not be read; pi ignores a broken models.json too. */
  problems: string[];
}

/** pi's agent dir: `$PI_CODING_AGENT_DIR` (a leading `~` is the home dir), else `~/.pi/agent`. */
export function piAgentDir(env: Record<string, string | undefined>): string {
  const home = env.HOME ?? homedir();
  const configured = env.PI_CODING_AGENT_DIR;
  if (configured === undefined || configured === "") return path.join(home, ".pi", "agent");
  if (configured === "~") return home;
  return configured.startsWith("~/") ? path.join(home, configured.slice(2)) : configured;
}

const builtinCache = new Map<string, Promise<PiModelRef[]>>();

/** Imports the generated table once per file version (the URL carries its mtime, so an upgrade is seen). */
function builtinModels(file: string): Promise<PiModelRef[]> {
  const url = `${pathToFileURL(file).href}?mtime=${statSync(file).mtimeMs}`;
  let loading = builtinCache.get(url);
  if (loading === undefined) {
    loading = (import(url) as Promise<Record<string, unknown>>).then((module) => {
      const table: unknown = (module as { MODELS?: unknown }).MODELS;
      if (typeof table !== "object" || table === null) throw new Error(`${file} exports no MODELS table`);
      return Object.entries(table as Record<string, unknown>).flatMap(([provider, models]) =>
        typeof models === "object" && models !== null
          ? Object.keys(models).map((id) => ({ provider, id }))
          : [],
      );
    });
    builtinCache.set(url, loading);
  }
  return loading;
}

/** Drops `//` line comments, then trailing commas, outside string literals (pi accepts both). */
function stripJsonExtras(text: string): string {
  const strings = /"(?:[^"\\]|\\.)*"/.source;
  const noComments = text.replace(new RegExp(`${strings}|//[^\\n]*`, "g"), (m) =>
    m.startsWith('"') ? m : "",
  );
  return noComments.replace(
    new RegExp(`${strings}|,(\\s*[}\\]])`, "g"),
    (m, closing?: string) => closing ?? m,
  );
}

function readModelsJson(file: string, catalog: PiModelCatalog): void {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return; // No models.json: only the built-in models.
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonExtras(text));
  } catch (error) {
    catalog.problems.push(`${file} is not valid JSON (${(error as Error).message}); pi ignores it`);
    return;
  }
  const providers = (parsed as { providers?: unknown } | null)?.providers;
  if (typeof providers !== "object" || providers === null) {
    catalog.problems.push(`${file} has no "providers" object; pi ignores it`);
    return;
  }
  for (const [provider, config] of Object.entries(providers as Record<string, unknown>)) {
    const fields = (typeof config === "object" && config !== null ? config : {}) as Record<string, unknown>;
    const apiKey = typeof fields.apiKey === "string" ? fields.apiKey : undefined;
    catalog.customProviders.set(provider, apiKey === undefined ? {} : { apiKey });
    const models = Array.isArray(fields.models) ? fields.models : [];
    for (const model of models) {
      const id = (model as { id?: unknown } | null)?.id;
      if (typeof id !== "string" || id === "") continue;
      const at = catalog.models.findIndex((m) => m.provider === provider && m.id === id);
      if (at < 0) catalog.models.push({ provider, id });
    }
  }
}

/**
 * Reads pi's catalog for `env` (the env the CLI will run with). Never throws: unreadable sources are
 * listed in `problems`.
 */
export async function loadPiModelCatalog(
  install: PiInstall | null,
  env: Record<string, string | undefined>,
): Promise<PiModelCatalog> {
  const agentDir = piAgentDir(env);
  const catalog: PiModelCatalog = {
    agentDir,
    modelsFile: path.join(agentDir, "models.json"),
    builtinFile: null,
    models: [],
    customProviders: new Map(),
    problems: [],
  };
  const file = install?.catalogFile ?? null;
  if (file !== null) {
    try {
      catalog.models.push(...(await builtinModels(file)));
      catalog.builtinFile = file;
    } catch (error) {
      catalog.problems.push(
        `could not read pi's built-in model catalog ${file}: ${(error as Error).message}`,
      );
    }
  }
  readModelsJson(catalog.modelsFile, catalog);
  return catalog;
}
