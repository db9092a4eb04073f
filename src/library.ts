/**
 * The library's composition root: `runWorkflow` and `loadConfig` as `import … from "sssf"` gives
 * them, with the built-in runtimes loaded and `registerRuntime` adding to the same registry.
 */

import type { SssfConfig } from "./config/config-types.js";
import { type LoadConfigOptions, loadConfig as loadConfigFrom } from "./config/load-config.js";
import {
  type RunOutcome,
  type RunWorkflowOptions,
  runWorkflow as runWorkflowWith,
} from "./engine/run-workflow.js";
import { builtinRuntimes } from "./runtimes/builtins.js";
import { claudeCodeRuntime } from "./runtimes/claude-code/index.js";
import { codexRuntime } from "./runtimes/codex/index.js";
import { execRuntime } from "./runtimes/exec/index.js";
import { geminiRuntime } from "./runtimes/gemini/index.js";
import { opencodeRuntime } from "./runtimes/opencode/index.js";
import { piRuntime } from "./runtimes/pi/index.js";
import type { RuntimeRegistry } from "./runtimes/registry.js";
import type { Runtime } from "./runtimes/runtime.js";

// Loaded up front so `getRuntime` can answer synchronously; the ids come from the built-in list.
const registry = builtinRuntimes().with([
  piRuntime,
  claudeCodeRuntime,
  codexRuntime,
  geminiRuntime,
  opencodeRuntime,
  execRuntime,
]);

/** The runtime registered under `id`, or undefined. Never throws. */
export function getRuntime(id: string): Runtime | undefined {
  return registry.loaded(id);
}

/**
 * Registers `runtime` under its `id`, replacing any runtime already registered with that id; later
 * `runWorkflow` and `loadConfig` calls of the library see it.
 *
 * @example
 * registerRuntime({ id: "echo", specVersion: "sssf-runtime/1", send: async (request) => ({
 *   ok: true, text: request.prompt, usage: emptyUsage(), contextTokens: null }) });
 */
export function registerRuntime(runtime: Runtime): void {
  registry.register(runtime);
}

/** Every registered id, in registration order. */
export function registeredRuntimeIds(): string[] {
  return registry.ids();
}

/** `runWorkflow` of the engine with the library's registry unless the options bring their own. */
export function runWorkflow(
  options: Omit<RunWorkflowOptions, "registry"> & { registry?: RuntimeRegistry },
): Promise<RunOutcome> {
  return runWorkflowWith({ ...options, registry: options.registry ?? registry });
}

/** `loadConfig` with `coding_agent` checked against the library's registry unless told otherwise. */
export function loadConfig(
  options: Omit<LoadConfigOptions, "knownRuntimes"> & { knownRuntimes?: readonly string[] | undefined },
): SssfConfig {
  return loadConfigFrom({ ...options, knownRuntimes: options.knownRuntimes ?? registry.ids() });
}
