import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { SessionLockedError } from "../errors/session-locked-error.js";
import { processAlive } from "../util/process-group.js";

interface LockContent {
  pid: number;
  host: string;
  started_at: string;
}

function readLock(file: string): LockContent | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as LockContent;
  } catch {
    return null;
  }
}

/**
 * Takes the exclusive lock of one session (`O_EXCL` create). A lock left by a dead process on this
 * host is taken over; a live holder makes this throw `SessionLockedError`, so two processes never
 * write one session at once. Returns the release function.
 */
export function acquireSessionLock(file: string, adwId: string): () => void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, "wx");
      const content: LockContent = {
        pid: process.pid,
        host: hostname(),
        started_at: new Date().toISOString(),
      };
      writeSync(fd, JSON.stringify(content));
      closeSync(fd);
      return () => {
        const held = readLock(file);
        if (held?.pid === process.pid) unlinkSync(file);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readLock(file);
      // A lock being written right now reads as empty: treat it as held.
      if (holder === null) throw new SessionLockedError(adwId, 0, file);
      if (holder.host === hostname() && !processAlive(holder.pid)) {
        try {
          unlinkSync(file);
        } catch {
          // Another process took over the stale lock first; the next attempt sees its lock.
        }
        continue;
      }
      throw new SessionLockedError(adwId, holder.pid, file);
    }
  }
  throw new SessionLockedError(adwId, readLock(file)?.pid ?? 0, file);
}
