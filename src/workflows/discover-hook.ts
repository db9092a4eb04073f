/**
 * The module hooks that let `adws/adw_<name>.ts` load without a build step and without sssf installed
 * in the repo: tsx compiles TypeScript, and a small resolve hook of our own (1) maps the bare
 * specifiers `sssf`, `sssf/testing` and `zod` to this package's entry points (and its own zod) when
 * the repo's own resolution fails, and (2) loads every file under an `adws/` folder as an ES module whatever the repo's
 * package.json says, so `import … from "sssf"` stays an import and not a `require`.
 */
import { existsSync, readFileSync } from "node:fs";
import { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { packageRoot, runsFromDist } from "../util/package-root.js";

/**
 * The resolve hook, as the source of a `data:` module: it runs in Node's loader thread, so it must be
 * plain JavaScript that works the same from `dist/`, from `src/` under tsx, and under vitest.
 */
const RESOLVE_HOOK_SOURCE = `
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

let targets = {};
export function initialize(data) { targets = data.targets; }

// tsx may decorate a URL with its own queries; the file itself is what decides.
function workflowFileUrl(url) {
  if (!url.startsWith("file:")) return undefined;
  let file = fileURLToPath(url);
  const query = file.indexOf("?");
  if (query >= 0 && !existsSync(file)) file = file.slice(0, query);
  const posix = file.split("\\\\").join("/");
  if (posix.includes("/node_modules/")) return undefined;
  if (!/\\/adws\\/(?:[^/]+\\/)*[^/]+\\.(?:ts|mts|js|mjs)$/.test(posix)) return undefined;
  return pathToFileURL(file).href;
}

export async function resolve(specifier, context, nextResolve) {
  let result;
  try {
    result = await nextResolve(specifier, context);
  } catch (error) {
    const target = targets[specifier];
    if (target) return { url: target, format: "module", shortCircuit: true };
    throw error;
  }
  const url = workflowFileUrl(result.url);
  return url ? { url, format: "module", shortCircuit: true } : result;
}
`;

/** The public specifiers mapped, and the `exports` key of package.json each one stands for. */
const MAPPED_SPECIFIERS = { sssf: ".", "sssf/testing": "./testing" } as const;

/**
 * File URLs of this package's own entry points for `sssf` and `sssf/testing`, read from its
 * package.json `exports` (the built `dist/` files). Never throws on a well-formed install.
 */
export function sssfEntryUrls(): Record<string, string> {
  const root = packageRoot();
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    exports: Record<string, { default: string }>;
  };
  const targets: Record<string, string> = {};
  for (const [specifier, key] of Object.entries(MAPPED_SPECIFIERS)) {
    const entry = manifest.exports[key]?.default;
    if (entry) targets[specifier] = pathToFileURL(path.join(root, entry)).href;
  }
  // A custom output type's `z`: the same zod sssf validates with (`import { z } from "sssf"` is the typed way).
  targets.zod = runsFromDist()
    ? pathToFileURL(path.join(root, "dist/zod.js")).href
    : import.meta.resolve("zod");
  return targets;
}

let registered: Promise<void> | undefined;

/**
 * Registers tsx (process-wide, so a workflow module and the CLI share one copy of sssf) and then the
 * resolve hook, which therefore runs first. Idempotent: later calls reuse the first registration, whose
 * tsconfig is `<repoRoot>/tsconfig.json` when that exists (none otherwise, so the caller's current
 * directory never leaks in). Rejects only when tsx itself cannot be loaded.
 */
export function registerWorkflowLoader(repoRoot: string): Promise<void> {
  registered ??= (async () => {
    const targets = sssfEntryUrls();
    // Loaded before the hooks exist: the same modules, without a trip through the loader thread each.
    if (targets.sssf) await import(targets.sssf);
    const tsx = await import("tsx/esm/api");
    const tsconfig = path.join(repoRoot, "tsconfig.json");
    // Node 26 deprecates module.register (DEP0205) and tsx has no registerHooks path yet: without this,
    // every run that loads a repo workflow prints the warning on the user's terminal. Only these two
    // synchronous calls are silenced; the flag is put back as it was.
    const silenced = process.noDeprecation;
    process.noDeprecation = true;
    try {
      tsx.register({ tsconfig: existsSync(tsconfig) ? tsconfig : false });
      register(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK_SOURCE)}`, {
        data: { targets },
      });
    } finally {
      process.noDeprecation = silenced;
    }
  })();
  return registered;
}
