import { existsSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../errors/usage-error.js";
import { type ReapResult, reapDeadRuns } from "../session/reaper.js";
import { openTraceStore } from "../trace/open-store.js";
import type { TraceStore } from "../trace/store.js";
import { traceLocation, traceMayExist } from "../trace/trace-location.js";
import { terminalSafe } from "../util/terminal-text.js";

export interface ReadOptions {
  db?: string;
  config?: string;
  cwd?: string;
}

// Kept here rather than imported: loading the config module (zod, yaml) costs ~140 ms, and the read
// commands only need it when a config file is actually there.
const DEFAULT_CONFIG_PATH = "adws/adw_sssf_config/sssf.config.yaml";
const DEFAULT_DATA_DIR = "adws/adw_data";

/** Where the trace lives: `--db`, else `SSSF_DB`, else the config's `observability.db`, else the default path. */
export async function tracePaths(options: ReadOptions): Promise<{ dbPath: string; sessionsDir: string }> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  if (options.config || (!options.db && existsSync(path.join(cwd, DEFAULT_CONFIG_PATH)))) {
    const { loadConfig } = await import("./builtin-plugins.js");
    const config = loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
    return {
      dbPath: options.db ? traceLocation(cwd, options.db) : config.dbPath,
      sessionsDir: config.sessionsDir,
    };
  }
  const dataDir = path.join(cwd, DEFAULT_DATA_DIR);
  const shared = process.env.SSSF_DB;
  return {
    dbPath: options.db
      ? traceLocation(cwd, options.db)
      : shared
        ? traceLocation(cwd, shared)
        : path.join(dataDir, "sssf.db"),
    sessionsDir: path.join(dataDir, "sessions"),
  };
}

/** What the running command is called in a reaper's reason: `sssf sessions`, `sssf ps`… */
export function commandName(): string {
  const name = process.argv[2];
  return name === undefined || name.startsWith("-") ? "sssf" : `sssf ${name}`;
}

/**
 * Closes the runs whose sssf died (the reaper, docs/lifecycle.md) and says so on stderr, one line per
 * session, so what is printed next shows them `interrupted`, not `running`. Never throws: a session
 * that cannot be closed is a warning.
 */
export async function reapForRead(
  db: TraceStore,
  paths: { dbPath: string; sessionsDir: string },
): Promise<ReapResult> {
  let result: ReapResult;
  try {
    result = await reapDeadRuns(db, { ...paths, by: commandName() });
  } catch (error) {
    result = { reaped: [], failed: [{ adwId: "?", error: (error as Error).message }] };
  }
  for (const reaped of result.reaped) {
    const ended = reaped.processesEnded > 0 ? `, ${reaped.processesEnded} leftover process(es) ended` : "";
    const owner = reaped.pid === null ? "its sssf" : `its sssf (pid ${reaped.pid})`;
    process.stderr.write(
      terminalSafe(`sssf: session ${reaped.adwId}: ${owner} is gone; closed as interrupted${ended}\n`, {
        multiline: true,
      }),
    );
  }
  for (const failed of result.failed)
    process.stderr.write(
      terminalSafe(`sssf: could not close interrupted session ${failed.adwId}: ${failed.error}\n`, {
        multiline: true,
      }),
    );
  return result;
}

/** Options of {@link openReadDb}. */
export interface OpenReadOptions {
  /** Close the runs whose sssf died before reading (default true). */
  reap?: boolean;
}

/** An open read-only trace and where it lives. */
export interface ReadTrace {
  db: TraceStore;
  dbPath: string;
  sessionsDir: string;
}

/**
 * Opens the trace read-only; a missing database is a clear usage error, not a stack trace. First the
 * reaper closes runs whose sssf died (one query of the running sessions; a writable connection only
 * when one is found), unless `reap` is false. The caller closes `db`.
 */
export async function openReadTrace(options: ReadOptions, open: OpenReadOptions = {}): Promise<ReadTrace> {
  const paths = await tracePaths(options);
  const { dbPath } = paths;
  if (!traceMayExist(dbPath, existsSync)) {
    throw new UsageError(
      `no trace database at ${dbPath} (run a workflow first, or pass --db PATH / --config PATH)`,
      "--db",
    );
  }
  const db = await openTraceStore(dbPath, { readonly: true });
  if (open.reap !== false) {
    try {
      await reapForRead(db, paths);
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  return { db, ...paths };
}

/** {@link openReadTrace}'s connection alone. */
export async function openReadDb(options: ReadOptions, open: OpenReadOptions = {}): Promise<TraceStore> {
  return (await openReadTrace(options, open)).db;
}
