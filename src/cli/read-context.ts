import { existsSync } from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { DEFAULT_CONFIG_PATH, DEFAULT_DATA_DIR, loadConfig } from "../engine/config.js";
import { UsageError } from "../errors/usage-error.js";
import { openTraceDb } from "../trace/database.js";

export interface ReadOptions {
  db?: string;
  config?: string;
  cwd?: string;
}

/** Where the trace lives: `--db`, else the config's `observability.db`, else the default path. */
export function tracePaths(options: ReadOptions): { dbPath: string; sessionsDir: string } {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (options.config || existsSync(path.join(cwd, DEFAULT_CONFIG_PATH))) {
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
export function openReadDb(options: ReadOptions): Database.Database {
  const { dbPath } = tracePaths(options);
  if (!existsSync(dbPath)) {
    throw new UsageError(
      `no trace database at ${dbPath} (run a workflow first, or pass --db PATH / --config PATH)`,
      "--db",
    );
  }
  return openTraceDb(dbPath, { readonly: true });
}
