import { existsSync, type FSWatcher, watch } from "node:fs";
import path from "node:path";

/** How `waitForFile` stops and how often it looks without file events. */
export interface WaitForFileOptions {
  signal: AbortSignal;
  /**
   * The slow fallback check, in milliseconds (default 1000): `fs.watch` misses events on some file
   * systems (network mounts, some containers), so the file is also looked for on this interval.
   */
  pollMs?: number;
}

/**
 * Waits until `file` exists, watching its folder (which must exist) and polling slowly as a
 * fallback. Resolves `"found"` once it is there (at once if it already is), or `"aborted"` as soon as
 * `signal` aborts — synchronously in the abort event, so the caller can still record the end of its
 * phase before the run finalizes. Never rejects; leaves no watcher or timer behind.
 */
export function waitForFile(file: string, options: WaitForFileOptions): Promise<"found" | "aborted"> {
  const { signal } = options;
  if (signal.aborted) return Promise.resolve("aborted");
  if (existsSync(file)) return Promise.resolve("found");
  const base = path.basename(file);
  return new Promise((resolve) => {
    let watcher: FSWatcher | null = null;
    let done = false;
    const finish = (outcome: "found" | "aborted") => {
      if (done) return;
      done = true;
      clearInterval(timer);
      watcher?.close();
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const check = () => {
      if (existsSync(file)) finish("found");
    };
    const onAbort = () => finish("aborted");
    const timer = setInterval(check, options.pollMs ?? 1000);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      watcher = watch(path.dirname(file), (_event, name) => {
        // Some platforms give no name: look anyway.
        if (name === null || name === base) check();
      });
      watcher.on("error", () => {
        // The poll keeps going without the watcher.
        watcher?.close();
        watcher = null;
      });
    } catch {
      watcher = null;
    }
    // The file may have appeared between the first look and the watcher.
    check();
  });
}
