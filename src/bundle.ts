/**
 * The one module the build makes of sssf (`dist/cli/sssf.js`, CommonJS): the program and every entry
 * point, each loaded when first asked for. The files of `dist/` that package.json and the benchmarks
 * name (`dist/index.js`, `dist/zod.js`…) are small ES modules re-exporting `entry(name)` from here, so
 * the CLI, the library a workflow imports and a script all share one copy of each class and schema.
 */

/** Each entry point, as its path under src/ without `.ts`, and how to load it. */
const ENTRIES = {
  index: () => import("./index.js"),
  "testing/index": () => import("./testing/index.js"),
  zod: () => import("./zod.js"),
  "trace/index": () => import("./trace/index.js"),
  "runtimes/exec/index": () => import("./runtimes/exec/index.js"),
  "runtimes/claude-code/index": () => import("./runtimes/claude-code/index.js"),
  "runtimes/codex/index": () => import("./runtimes/codex/index.js"),
  "boundary/trees/tree-listing": () => import("./boundary/trees/tree-listing.js"),
  "boundary/write-boundary": () => import("./boundary/write-boundary.js"),
  "boundary/write-boundary-sends": () => import("./boundary/write-boundary-sends.js"),
  "envelope/parse-envelope": () => import("./envelope/parse-envelope.js"),
  "envelope/schemas": () => import("./envelope/schemas.js"),
} as const;

export type EntryName = keyof typeof ENTRIES;

/** The names of the entry points: the build writes a dist/<name>.js re-exporting each (scripts/bundle.mjs). */
export const entryNames = Object.keys(ENTRIES) as EntryName[];

/** The module of entry point `name`. */
export function entry(name: EntryName): Promise<Record<string, unknown>> {
  return ENTRIES[name]();
}

/** The `sssf` program (src/cli/program.ts), loaded on its first use. */
export async function runCli(argv: readonly string[]): Promise<void> {
  const program = await import("./cli/program.js");
  await program.runCli(argv);
}
