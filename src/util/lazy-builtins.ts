/**
 * Node built-ins loaded on first use, not at every start: most runs start no thread (the trace's writer
 * thread serves floods of events, the PostgreSQL bridge a PostgreSQL trace) and write few or no
 * loose objects, and loading each module costs a start a few milliseconds. Import their types with
 * `import type`.
 */
import { createRequire } from "node:module";

/** A function returning built-in `id`, required on its first call. */
function lazy<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= createRequire(import.meta.url)(id) as T;
    return loaded;
  };
}

/** `node:worker_threads`. */
export const workerThreads = lazy<typeof import("node:worker_threads")>("node:worker_threads");

/** `node:zlib`. */
export const zlib = lazy<typeof import("node:zlib")>("node:zlib");
