/**
 * The one table from `coding_agent` ids to runtimes. Nothing else in sssf branches on a runtime's
 * name: the engine asks this registry, users and benchmarks add their own runtimes here.
 */

import { claudeCodeRuntime } from "./claude-code/index.js";
import { codexRuntime } from "./codex/index.js";
import { execRuntime } from "./exec/index.js";
import { geminiRuntime } from "./gemini/index.js";
import { opencodeRuntime } from "./opencode/index.js";
import { piRuntime } from "./pi/index.js";
import type { Runtime } from "./runtime.js";

const runtimes = new Map<string, Runtime>(
  [piRuntime, claudeCodeRuntime, codexRuntime, geminiRuntime, opencodeRuntime, execRuntime].map((runtime) => [
    runtime.id,
    runtime,
  ]),
);

/** The runtime registered under `id`, or undefined. Never throws. */
export function getRuntime(id: string): Runtime | undefined {
  return runtimes.get(id);
}

/**
 * Registers `runtime` under its `id`, replacing any runtime already registered with that id.
 *
 * @example
 * registerRuntime({ id: "echo", specVersion: "sssf-runtime/1", send: async (request) => ({
 *   ok: true, text: request.prompt, usage: emptyUsage(), contextTokens: null }) });
 */
export function registerRuntime(runtime: Runtime): void {
  runtimes.set(runtime.id, runtime);
}

/** Every registered id, in registration order. */
export function registeredRuntimeIds(): string[] {
  return [...runtimes.keys()];
}
