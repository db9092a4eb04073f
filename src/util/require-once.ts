import { createRequire } from "node:module";

/**
 * A package from `node_modules`, required on the first call of the function returned and kept: for the
 * libraries the bundle leaves out so a run compiles them only on the path that needs them (yaml,
 * jsonrepair; see scripts/bundle.mjs). Throws what `require` throws.
 * @example const yaml = requireOnce<typeof import("yaml")>("yaml"); yaml().parse("a: 1");
 */
export function requireOnce<T>(id: string): () => T {
  let loaded: { module: T } | undefined;
  return () => {
    loaded ??= { module: createRequire(import.meta.url)(id) as T };
    return loaded.module;
  };
}
