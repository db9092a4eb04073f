import { existsSync } from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { UsageError } from "../errors/usage-error.js";
import { openTraceDb } from "../trace/database.js";

export interface ReadOptions {
  db?: string;
  config?: string;
  cwd?: string;
}

// Kept here rather than imported: loading the config module (zod, yaml) costs ~140 ms, and the read
// commands only need it when a config file is actually there.
const DEFAULT_CONFIG_PATH = "adws/adw_sssf_config/sssf.config.yaml";
const DEFAULT_DATA_DIR = "adws/adw_data";

/** Where the trace lives: `--db`, else the config's `observability.db`, else the default path. */
export async function tracePaths(options: ReadOptions): Promise<{ dbPath: string; sessionsDir: string }> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (options.config || (!options.db && existsSync(path.join(cwd, DEFAULT_CONFIG_PATH)))) {
    const { loadConfig } = await import("./builtin-plugins.js");
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    return {
      dbPath: options.db ? path.resolve(cwd, options.db) : config.dbPath,
      sessionsDir: config.sessionsDir,
    };
  }
  const dataDir = path.join(cwd, DEFAULT_DATA_DIR);
  return {
    dbPath: options.db ? path.resolve(cwd, options.db) : path.join(dataDir, "sssf.db"),
    sessionsDir: path.join(dataDir, "sessions"),
  };
}

/** Opens the trace read-only; a missing database is a clear usage error, not a stack trace. */
export async function openReadDb(options: ReadOptions): Promise<Database.Database> {
  const { dbPath } = await tracePaths(options);
  if (!existsSync(dbPath)) {
    throw new UsageError(
      `no trace database at ${dbPath} (run a workflow first, or pass --db PATH / --config PATH)`,
      "--db",
    );
  }
  return openTraceDb(dbPath, { readonly: true });
}
