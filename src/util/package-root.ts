import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/**
 * The folder holding sssf's own package.json, found by walking up from this module: the same answer
 * from the bundle in `dist/cli/` and from `src/` under tsx or vitest. Never throws; falls back to two folders above this module.
 */
export function packageRoot(): string {
  cached ??= findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
  return cached;
}

function findPackageRoot(here: string): string {
  for (let dir = here; ; ) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && manifestName(manifest) === "sssf") return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(here, "../..");
    dir = parent;
  }
}

function manifestName(file: string): unknown {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}

// Set by the bundler (scripts/bundle.mjs) to package.json's version; absent when run from src/.
declare const __SSSF_VERSION__: string | undefined;

/** sssf's version: the one the build was made from, else read from package.json. */
export function packageVersion(): string {
  if (typeof __SSSF_VERSION__ === "string") return __SSSF_VERSION__;
  const manifest = JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8"));
  return String(manifest.version);
}

/** Whether this code runs from the built bundles in `dist/` (not from `src/` under tsx or vitest). */
export const runsFromDist = (): boolean => import.meta.url.endsWith(".js");
