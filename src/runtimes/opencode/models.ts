/**
 * Model resolution for opencode without running it: a `provider/model` is known when a config file
 * lists it under `provider.<id>.models` or opencode's models.dev catalog has it (see
 * opencode-catalog.ts). Mirrors opencode's own parse: the provider is everything before the first `/`.
 */

import { loadOpencodeCatalog, type OpencodeCatalog } from "./catalog.js";
import { type OpencodeConfigView, readOpencodeConfig } from "./config-files.js";

type Env = Record<string, string | undefined>;

/** A model opencode can use, or why not. */
export type OpencodeModelResolution =
  | {
      ok: true;
      /** `provider/model` to pass with `--model`, or null for opencode's default. */
      model: string | null;
      provider: string | null;
      /** Where the model was found (a config file, the catalog), or why it could not be checked. */
      source: string;
      /** False when no catalog could be read and the provider is not configured: passed unchecked. */
      verified: boolean;
    }
  | { ok: false; error: string };

/** What model resolution reads: the config, and the catalog only when the config does not settle it. */
export interface OpencodeModelSources {
  config: OpencodeConfigView;
  catalog(): OpencodeCatalog | null;
}

/** Reads opencode's config files for `cwd` now, its catalog (cache file or binary snapshot) on demand. */
export function loadOpencodeModelSources(
  cwd: string,
  env: Env,
  binary: string | null,
  config: OpencodeConfigView = readOpencodeConfig(cwd, env),
): OpencodeModelSources {
  let catalog: OpencodeCatalog | null | undefined;
  return {
    config,
    catalog() {
      if (catalog === undefined) catalog = loadOpencodeCatalog(env, binary);
      return catalog;
    },
  };
}

const listed = (items: Iterable<string>, max = 12): string => {
  const all = [...items].sort();
  if (all.length === 0) return "(none)";
  return all.length <= max ? all.join(", ") : `${all.slice(0, max).join(", ")}, … (${all.length} in all)`;
};

function whereFrom(sources: OpencodeModelSources): string {
  const files = sources.config.files.length === 0 ? "none found" : sources.config.files.join(", ");
  const catalog = sources.catalog()?.source ?? "no models.dev catalog could be read";
  return `valid models are provider.<id>.models in opencode's config files (${files}) and ${catalog}`;
}

/**
 * Resolves `model` (`""` = opencode's default). Never throws; an unknown provider or model is
 * `{ ok: false }` with a message naming the model, the provider's known models and where they come from.
 */
export function resolveOpencodeModel(model: string, sources: OpencodeModelSources): OpencodeModelResolution {
  const wanted = model.trim();
  if (wanted === "") {
    const fallback = sources.config.defaultModel;
    const source = fallback === null ? "opencode's default" : `opencode's default (${fallback})`;
    return { ok: true, model: null, provider: null, source, verified: true };
  }
  const slash = wanted.indexOf("/");
  if (slash <= 0 || slash === wanted.length - 1) {
    return {
      ok: false,
      error: `opencode model "${wanted}" is not of the form provider/model (e.g. anthropic/claude-sonnet-4-5); ${whereFrom(sources)}`,
    };
  }
  const provider = wanted.slice(0, slash);
  const id = wanted.slice(slash + 1);
  const { config } = sources;
  if (
    config.disabledProviders.has(provider) ||
    (config.enabledProviders && !config.enabledProviders.has(provider))
  ) {
    return {
      ok: false,
      error: `opencode model "${wanted}": provider "${provider}" is turned off by disabled_providers/enabled_providers in ${config.files.join(", ")}`,
    };
  }
  const configured = config.providers.get(provider);
  if (configured?.models.has(id)) {
    return { ok: true, model: wanted, provider, source: configured.files.join(", "), verified: true };
  }
  const catalog = sources.catalog();
  const fromCatalog = catalog?.providers.get(provider);
  if (fromCatalog?.models.has(id)) {
    return { ok: true, model: wanted, provider, source: catalog?.source ?? "", verified: true };
  }
  if (catalog === null && configured === undefined) {
    const source = "unchecked: no models.dev catalog could be read and the provider is not configured";
    return { ok: true, model: wanted, provider, source, verified: false };
  }
  if (configured === undefined && fromCatalog === undefined) {
    const providers = new Set([...config.providers.keys(), ...(catalog?.providers.keys() ?? [])]);
    return {
      ok: false,
      error: `opencode has no provider "${provider}" (model "${wanted}"); known providers: ${listed(providers, 20)}; ${whereFrom(sources)}`,
    };
  }
  const models = new Set([...(configured?.models ?? []), ...(fromCatalog?.models ?? [])]);
  return {
    ok: false,
    error: `opencode has no model "${wanted}"; provider "${provider}" has: ${listed(models)}; ${whereFrom(sources)}`,
  };
}
