/**
 * The runtimes that ship with sssf, as lazy entries: their ids are known at once, their modules load
 * when an agent first needs one. The composition roots (the CLI, `src/library-runtimes.ts`) use this
 * list; nothing else names a runtime.
 */

import { type LazyRuntime, RuntimeRegistry } from "./registry.js";

const BUILTINS: readonly LazyRuntime[] = [
  { id: "pi", load: async () => (await import("./pi/index.js")).piRuntime },
  { id: "claude_code", load: async () => (await import("./claude-code/index.js")).claudeCodeRuntime },
  { id: "codex", load: async () => (await import("./codex/index.js")).codexRuntime },
  { id: "gemini", load: async () => (await import("./gemini/index.js")).geminiRuntime },
  { id: "opencode", load: async () => (await import("./opencode/index.js")).opencodeRuntime },
  { id: "exec", load: async () => (await import("./exec/index.js")).execRuntime },
];

/** The built-in runtime ids, in the order `sssf doctor` and error messages list them. */
export const BUILTIN_RUNTIME_IDS: readonly string[] = BUILTINS.map((entry) => entry.id);

/** A fresh registry of the built-in runtimes (a copy: registering into it changes no other). */
export function builtinRuntimes(): RuntimeRegistry {
  return new RuntimeRegistry(BUILTINS);
}
