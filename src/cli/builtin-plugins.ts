/**
 * The CLI's composition root: the plug-ins every command uses. Runtimes load lazily, so commands that
 * only read the trace never load a runtime module.
 */

import type { SssfConfig } from "../config/config-types.js";
import { type LoadConfigOptions, loadConfig as loadConfigWith } from "../config/load-config.js";
import { BUILTIN_RUNTIME_IDS, builtinRuntimes } from "../runtimes/builtins.js";
import { configurePostgresTrace } from "../trace/postgres/pg-shared.js";

/** The runtimes of this process: the built-in ones. */
export const runtimes = builtinRuntimes();

/** `loadConfig` with `coding_agent` checked against the CLI's runtimes. */
export function loadConfig(options: Omit<LoadConfigOptions, "knownRuntimes">): SssfConfig {
  const config = loadConfigWith({ ...options, knownRuntimes: BUILTIN_RUNTIME_IDS });
  // The process's PostgreSQL pool bound and LISTEN address: the config it runs by.
  if (config.tracePostgres !== undefined) configurePostgresTrace(config.tracePostgres);
  return config;
}
