/**
 * Requiring the program's bundle with V8's code cache on a Node that has no compile cache of its own
 * (before 22.1). Compiling the bundle is a quarter of a short run's own time; the cache holds the
 * bytecode of every function the last run of the same command compiled, so the next start skips
 * compiling them. Node ≥ 22.1 caches by itself (`module.enableCompileCache()` in main.ts).
 *
 * The cache is code sssf will run, so it lives only in the user's own cache folder
 * (src/util/cache-dir.ts, used only when no one else may write into it) and is named by the build id,
 * this Node, and the bundle's size and mtime: V8 itself checks only its own version and flags and the
 * source's length. A file V8 rejects is written anew. `NODE_DISABLE_COMPILE_CACHE=1` or an empty
 * `SSSF_CACHE_DIR` turns it off; every failure means "not cached", never a failed start.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";
import { cacheDir, trustedDir } from "../util/cache-dir.js";

// Set by the bundler to a hash of the sources and the lockfile the build was made from.
declare const __SSSF_BUILD_ID__: string | undefined;

/** Cache files kept at most; a write beyond that removes the oldest. */
const MAX_FILES = 12;

/** The parts of node:module's CommonJS loader this needs (stable since Node 12; not in its types). */
interface CommonJsLoader {
  new (id: string, parent?: unknown): NodeJS.Module;
  _nodeModulePaths?: (dir: string) => string[];
}

/** The cache file of `bundle` for runs of `command`, or null when there is none to use. */
function cacheFile(bundle: string, command: string): string | null {
  if (typeof __SSSF_BUILD_ID__ !== "string" || process.env.NODE_DISABLE_COMPILE_CACHE) return null;
  const root = cacheDir();
  if (root === null) return null;
  const dir = path.join(root, "code");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trustedDir(root) || !trustedDir(dir)) return null;
    const { size, mtimeMs } = statSync(bundle);
    const node = `${process.version}-${process.arch}`;
    return path.join(dir, `${__SSSF_BUILD_ID__}-${node}-${size}-${Math.trunc(mtimeMs)}-${command}.v8`);
  } catch {
    return null;
  }
}

/** Writes `data` whole, then renames it (a concurrent start reads the old file or the new, never half). */
function keep(file: string, data: Buffer): void {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
    const dir = path.dirname(file);
    const files = readdirSync(dir)
      .filter((name) => name.endsWith(".v8"))
      .map((name) => ({ name, at: statSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const { name } of files.slice(MAX_FILES)) rmSync(path.join(dir, name), { force: true });
  } catch {
    rmSync(partial, { force: true });
  }
}

/**
 * `require(bundle)`, compiled with the code cache of `command` when there is one. The module lands in
 * require's cache as a plain require would put it, so a later `require` or `import` of the same file
 * (a workflow's `import … from "sssf"`) gets this one copy.
 */
export function requireWithCodeCache(bundle: string, command: string): unknown {
  const require = createRequire(bundle);
  if (require.cache[bundle] !== undefined) return require(bundle);
  const file = (Module as { enableCompileCache?: unknown }).enableCompileCache
    ? null
    : cacheFile(bundle, command);
  if (file === null) return require(bundle);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(file);
  } catch {
    cachedData = undefined;
  }
  // The build keeps the bundle ASCII, so this is its text, in a string V8 keeps one byte a character.
  const source = readFileSync(bundle, "latin1");
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) { ${source}\n});`,
    // No import() in it: a function restored from the cache could not run one (src/util/import-module.ts).
    { filename: bundle, cachedData },
  );
  const loader = Module as unknown as CommonJsLoader;
  const bundleModule = new loader(bundle, null);
  bundleModule.filename = bundle;
  bundleModule.paths = loader._nodeModulePaths?.(path.dirname(bundle)) ?? [];
  require.cache[bundle] = bundleModule;
  try {
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(
      bundleModule.exports,
      bundleModule.exports,
      require,
      bundleModule,
      bundle,
      path.dirname(bundle),
    );
  } catch (error) {
    delete require.cache[bundle];
    throw error;
  }
  bundleModule.loaded = true;
  // Made at exit, so it holds what this run compiled, not only the top level.
  if (cachedData === undefined || script.cachedDataRejected === true)
    process.once("exit", () => keep(file, script.createCachedData()));
  return bundleModule.exports;
}
