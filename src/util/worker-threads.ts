/**
 * `node:worker_threads`, loaded when a thread is first started: most runs start none (the trace's
 * writer thread serves floods of events, the PostgreSQL bridge a PostgreSQL trace), and loading the
 * module costs a start a few milliseconds. Import its types with `import type`.
 */
import { createRequire } from "node:module";

let loaded: typeof import("node:worker_threads") | undefined;

/** The `node:worker_threads` module, required on the first call. */
export function workerThreads(): typeof import("node:worker_threads") {
  loaded ??= createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads");
  return loaded;
}
