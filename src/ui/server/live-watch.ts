import { type FSWatcher, watch } from "node:fs";
import path from "node:path";
import { isPostgresUrl } from "../../trace/trace-location.js";

/** Options of {@link watchDatabase}. */
export interface WatchDatabaseOptions {
  /** Called when the database or its WAL may have changed: cheap to call often. */
  onChange: () => void;
  /** Called on every fallback interval, after `onChange` (default: nothing). */
  onInterval?: () => void;
  /** Fallback interval in ms, for file systems where change notifications are missed (default 1000). */
  fallbackMs?: number;
}

/** A running watch; `close()` stops it (idempotent). */
export interface DatabaseWatch {
  close(): void;
}

/**
 * Watches the folder of the SQLite database at `dbPath` for writes to the database or its `-wal`
 * file (a committing writer appends to the WAL), plus a slow fallback interval. The folder is watched
 * rather than the WAL itself because the WAL may not exist yet, and is recreated after checkpoints.
 * Contract: never throws; when the folder cannot be watched, only the interval runs.
 */
export function watchDatabase(dbPath: string, options: WatchDatabaseOptions): DatabaseWatch {
  const base = path.basename(dbPath);
  const names = new Set([base, `${base}-wal`]);
  let watcher: FSWatcher | null = null;
  // A PostgreSQL trace has no file to watch: poll it (the hub's read is one cheap query).
  const polled = isPostgresUrl(dbPath);
  if (!polled)
    try {
      watcher = watch(path.dirname(path.resolve(dbPath)), { persistent: false }, (_event, name) => {
        if (name === null || names.has(String(name))) options.onChange();
      });
      watcher.on("error", () => {
        watcher?.close();
        watcher = null;
      });
    } catch {
      watcher = null;
    }
  const timer = setInterval(
    () => {
      options.onChange();
      options.onInterval?.();
    },
    polled ? 250 : (options.fallbackMs ?? 1000),
  );
  timer.unref();
  return {
    close() {
      clearInterval(timer);
      watcher?.close();
      watcher = null;
    },
  };
}
