import { existsSync } from "node:fs";
import path from "node:path";
import { Option } from "commander";
import { DEFAULT_CONFIG_PATH } from "../../config/config-schema.js";
import type { SssfConfig } from "../../config/config-types.js";
import { UsageError } from "../../errors/usage-error.js";
import { loadConfig } from "../builtin-plugins.js";

/** `host:port` of `--listen`, checked. */
export function parseListen(value: string | undefined, fallback: string): { host: string; port: number } {
  const text = value ?? fallback;
  const match = /^(.+):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match?.[1] || !(port >= 0 && port <= 65_535))
    throw new UsageError(`--listen: expected host:port (such as 127.0.0.1:9081), got "${text}"`, "--listen");
  return { host: match[1].replace(/^\[(.*)\]$/, "$1"), port };
}

/** A whole number of at least `min` from `flag`'s value, or `fallback`. */
export function parseCount(flag: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const count = Number(value);
  if (!Number.isInteger(count) || count < min)
    throw new UsageError(`${flag}: expected a whole number of at least ${min}, got "${value}"`, flag);
  return count;
}

/**
 * The config a cluster command reads its `engine:` section from: `--config`, else the one in `--cwd`
 * (or the current folder) when there is one; null when there is none (flags and variables only).
 */
export function optionalConfig(options: { config?: string; cwd?: string }): SssfConfig | null {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (options.config === undefined && !existsSync(path.join(cwd, DEFAULT_CONFIG_PATH))) return null;
  return loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
}

/** A line on stderr, with the time: what a long-running cluster process says. */
export function logLine(who: string): (line: string) => void {
  return (line) => process.stderr.write(`${new Date().toISOString()} ${who}: ${line}\n`);
}

/** `--listen <host:port>` of the pool and the worker, with its default. */
export const listenOption = (fallback: string): Option =>
  new Option("--listen <host:port>", `where to listen (default ${fallback}; port 0 picks a free one)`);
