/**
 * `import()` of a module outside sssf's bundle: a package it leaves in node_modules (tsx, the Restate
 * SDK), a repo's workflow file, pi's model table. The build keeps this file out of the bundle
 * (dist/cli/import-module.js, compiled by Node itself), because V8 drops what a function restored from
 * the code cache needs for its own `import()` (src/cli/code-cache.ts). A bare specifier resolves from
 * dist/cli/, as from the bundle.
 */
export function importModule<T = Record<string, unknown>>(specifier: string): Promise<T> {
  return import(specifier) as Promise<T>;
}
