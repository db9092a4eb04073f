/**
 * opencode's models.dev catalog, read the way opencode reads it: `$OPENCODE_MODELS_PATH`, else the
 * cached `$XDG_CACHE_HOME/opencode/models.json`, else the snapshot bundled in the opencode binary
 * (what a fresh install uses, since sssf runs opencode with OPENCODE_DISABLE_MODELS_FETCH=1).
 */

import { closeSync, openSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readJsLiteral } from "./literal.js";

/** One catalog provider: the env variables that hold its key and its model ids. */
export interface CatalogProvider {
  env: string[];
  models: Set<string>;
}

/** A loaded catalog and where it came from (a file path, or `bundled in <binary>`). */
export interface OpencodeCatalog {
  source: string;
  providers: Map<string, CatalogProvider>;
}

type Env = Record<string, string | undefined>;

/** opencode's span name right after the snapshot; stable across minified builds. */
const SNAPSHOT_MARKER = Buffer.from('"ModelsDev.fetchAndWrite"');
const SNAPSHOT_OPENER = Buffer.from(".sync(()=>({");
const CHUNK_BYTES = 16 * 1024 * 1024;
const SNAPSHOT_WINDOW_BYTES = 24 * 1024 * 1024;

function toCatalog(raw: unknown, source: string): OpencodeCatalog | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const providers = new Map<string, CatalogProvider>();
  for (const [id, value] of Object.entries(raw)) {
    if (typeof value !== "object" || value === null) continue;
    const entry = value as { env?: unknown; models?: unknown };
    const env = Array.isArray(entry.env) ? entry.env.filter((v): v is string => typeof v === "string") : [];
    const models = typeof entry.models === "object" && entry.models !== null ? Object.keys(entry.models) : [];
    providers.set(id, { env, models: new Set(models) });
  }
  return providers.size === 0 ? null : { source, providers };
}

/** Offset of the snapshot marker in `file`, scanning in chunks so the binary is never held whole. */
function findMarker(fd: number, size: number): number {
  const chunk = Buffer.alloc(CHUNK_BYTES + SNAPSHOT_MARKER.length);
  for (let at = 0; at < size; at += CHUNK_BYTES) {
    const read = readSync(fd, chunk, 0, chunk.length, at);
    const found = chunk.subarray(0, read).indexOf(SNAPSHOT_MARKER);
    if (found >= 0) return at + found;
  }
  return -1;
}

function readBundled(binary: string): OpencodeCatalog | null {
  const fd = openSync(binary, "r");
  try {
    const size = statSync(binary).size;
    const marker = findMarker(fd, size);
    if (marker < 0) return null;
    const start = Math.max(0, marker - SNAPSHOT_WINDOW_BYTES);
    const window = Buffer.alloc(marker - start);
    readSync(fd, window, 0, window.length, start);
    const opener = window.lastIndexOf(SNAPSHOT_OPENER);
    if (opener < 0) return null;
    const text = window.subarray(opener + SNAPSHOT_OPENER.length - 1).toString("utf8");
    return toCatalog(readJsLiteral(text).value, `the catalog bundled in ${binary}`);
  } finally {
    closeSync(fd);
  }
}

const cache = new Map<string, OpencodeCatalog | null>();

/** Reads `file` once per (path, size, mtime); null when unreadable or not a catalog. */
function cached(file: string, load: (file: string) => OpencodeCatalog | null): OpencodeCatalog | null {
  let key: string;
  try {
    const stat = statSync(file);
    key = `${file}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return null;
  }
  if (!cache.has(key)) {
    let catalog: OpencodeCatalog | null = null;
    try {
      catalog = load(file);
    } catch {
      catalog = null;
    }
    cache.set(key, catalog);
  }
  return cache.get(key) ?? null;
}

const readJsonCatalog = (file: string) => toCatalog(JSON.parse(readFileSync(file, "utf8")), file);

/** `$XDG_CACHE_HOME/opencode` (opencode's cache folder). */
export function opencodeCacheDir(env: Env): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), ".cache");
  return path.join(base, "opencode");
}

/**
 * The catalog opencode would use, or null when none can be read (no cache file and no recognizable
 * snapshot in `binary`). Never throws; each file is parsed once per process while it is unchanged.
 */
export function loadOpencodeCatalog(env: Env, binary: string | null): OpencodeCatalog | null {
  if (env.OPENCODE_MODELS_PATH) return cached(env.OPENCODE_MODELS_PATH, readJsonCatalog);
  if (!env.OPENCODE_MODELS_URL) {
    const fromCache = cached(path.join(opencodeCacheDir(env), "models.json"), readJsonCatalog);
    if (fromCache !== null) return fromCache;
  }
  if (binary === null) return null;
  let real: string;
  try {
    real = realpathSync(binary);
  } catch {
    return null;
  }
  return cached(real, readBundled);
}
