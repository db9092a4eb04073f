/**
 * `openTraceStore`: the one opener of a trace, choosing the store by its location (a SQLite file path,
 * or a `postgres://` URL), checking that it holds an sssf trace and migrating it.
 */

import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { SssfError } from "../errors/index.js";
import { isUnavailable } from "./db-unavailable.js";
import { PgStore } from "./postgres/pg-store.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { TraceStore } from "./store.js";
import { checkStoreShape, migrateStore, SCHEMA_VERSION } from "./store-schema.js";
import { isPostgresUrl } from "./trace-location.js";

/** Options of {@link openTraceStore}. */
export interface OpenTraceStoreOptions {
  /**
   * Open for reading only: nothing created, and the trace must already exist. An older or half-made
   * trace is migrated first (through a writable connection) unless `asIs` is set.
   */
  readonly?: boolean;
  /** With `readonly`: the trace as it is, neither checked nor migrated. */
  asIs?: boolean;
}

/**
 * Opens (creating when needed) the trace at `location`. SQLite: WAL journal (readers never block the
 * writer), a 30 s busy timeout, `synchronous=NORMAL`. Both: a foreign database refused before anything
 * is written to it (ForeignTraceError naming it), the schema migrated to the current version.
 * Throws SssfError("usage") naming the path or URL (without its password) when `readonly` and there is
 * no trace, when the file cannot be created or opened, or when the server cannot be reached.
 * @example
 * const store = await openTraceStore("adws/adw_data/sssf.db");
 */
export async function openTraceStore(
  location: string,
  options: OpenTraceStoreOptions = {},
): Promise<TraceStore> {
  if (isPostgresUrl(location)) return openPostgres(location, options);
  if (options.readonly === true) {
    if (!existsSync(location))
      throw new SssfError(
        "usage",
        `Trace database not found: ${location} (run a workflow first, or rebuild it from the session files).`,
      );
    const store = openSqliteStore(location, { readonly: true });
    return options.asIs === true ? store : upToDate(store, location, options);
  }
  const store = openWritable(location);
  try {
    // The shape first: a foreign file is refused before anything (the WAL switch included) writes to it.
    await checkStoreShape(store);
    await store.pragma("journal_mode = WAL");
    await store.pragma("synchronous = NORMAL");
    await migrateStore(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/**
 * `store` (read-only) when it holds the current schema whole; else migrated through a writable
 * connection and opened again. SssfError("usage") when it cannot be migrated.
 */
async function upToDate(
  store: TraceStore,
  location: string,
  options: OpenTraceStoreOptions,
): Promise<TraceStore> {
  let shape: Awaited<ReturnType<typeof checkStoreShape>>;
  try {
    shape = await checkStoreShape(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  if (shape.version === SCHEMA_VERSION && shape.missing.length === 0) return store;
  await store.close();
  try {
    await (await openTraceStore(location)).close();
  } catch (error) {
    if (error instanceof SssfError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new SssfError(
      "usage",
      `trace database ${store.name} has schema version ${shape.version} and needs migrating to ${SCHEMA_VERSION}, which failed: ${why}; run any sssf command with write access to it once`,
      { cause: error },
    );
  }
  return openTraceStore(location, options);
}

/** The SQLite file opened for writing, its folder created; SssfError("usage") naming it when it cannot be. */
function openWritable(file: string): TraceStore {
  try {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return openSqliteStore(file);
  } catch (error) {
    if (error instanceof SssfError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new SssfError(
      "usage",
      `cannot open the trace database ${file}: ${why}; point observability.db, trace.url or SSSF_DB at a file sssf may create and write`,
      { cause: error },
    );
  }
}

/** The PostgreSQL trace at `url`: bootstrapped and migrated unless `readonly`. */
async function openPostgres(url: string, options: OpenTraceStoreOptions): Promise<TraceStore> {
  const store = new PgStore(url, { readonly: options.readonly === true });
  try {
    if (options.readonly === true) {
      const found = await store.get<{ t: string | null }>("SELECT to_regclass('sssf_schema') AS t");
      if (found?.t === null || found === undefined) {
        // Another program's tables of sssf's names are said as such, not as "no trace yet".
        await checkStoreShape(store);
        throw new SssfError(
          "usage",
          `Trace database ${store.name} holds no sssf trace yet (run a workflow first).`,
        );
      }
      return options.asIs === true ? store : await upToDate(store, url, options);
    }
    // Its tables' shape first: a foreign database gets not even sssf's version table.
    await checkStoreShape(store);
    await store.bootstrap();
    await migrateStore(store);
  } catch (error) {
    await store.close();
    if (isUnavailable(error))
      throw new SssfError(
        "usage",
        `Trace database ${store.name} cannot be reached: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    throw error;
  }
  return store;
}

/**
 * A plain writable connection to an existing trace: no migration, no journal-mode change, for a short
 * write to rows that are there (the UI's archive flag). Throws what the driver throws. The caller closes it.
 */
export function openTraceConnection(location: string): TraceStore {
  return isPostgresUrl(location) ? new PgStore(location) : openSqliteStore(location, { fileMustExist: true });
}
