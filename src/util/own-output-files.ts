/**
 * The files this process's own stdout and stderr go to, when the operator redirected them into one
 * (`sssf run … > run.log 2>&1` in the repository). sssf writes them all through a run, agents' sends
 * included: they are sssf's, never an agent's change to undo, a run's change to commit, or the
 * operator's uncommitted work to carry.
 */
import { fstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

const OUTPUT_FDS = [1, 2] as const;

/**
 * Real absolute paths of the regular files the descriptors `fds` write to, each read from /proc (Linux)
 * and checked to still lead to the open file; a descriptor that is a pipe or terminal, closed, or whose
 * file was deleted or replaced since, names none. Never throws.
 */
export function filesWrittenBy(fds: readonly number[]): string[] {
  const files: string[] = [];
  for (const fd of fds) {
    try {
      const open = fstatSync(fd);
      if (!open.isFile()) continue;
      const named = readlinkSync(`/proc/self/fd/${fd}`);
      if (!named.startsWith("/")) continue;
      const now = statSync(named);
      if (now.dev !== open.dev || now.ino !== open.ino) continue;
      const real = realpathSync(named);
      if (!files.includes(real)) files.push(real);
    } catch {
      // closed, no /proc (macOS), unreadable: nothing known to leave out
    }
  }
  return files;
}

/**
 * True when `absolute` is the very file (device and inode) one of `fds` writes to: the check that also
 * holds where {@link filesWrittenBy} cannot name it (no /proc). Never throws.
 */
export function writtenBy(fds: readonly number[], absolute: string): boolean {
  let file: { dev: number; ino: number };
  try {
    file = statSync(absolute);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      const open = fstatSync(fd);
      return open.isFile() && open.dev === file.dev && open.ino === file.ino;
    } catch {
      return false;
    }
  });
}

let own: readonly string[] | null = null;

/** {@link filesWrittenBy} of this process's stdout and stderr, read once. */
export function ownOutputFiles(): readonly string[] {
  own ??= filesWrittenBy(OUTPUT_FDS);
  return own;
}

/** True when `absolute` is the file this process's stdout or stderr writes to ({@link writtenBy}). */
export function isOwnOutputFile(absolute: string): boolean {
  return writtenBy(OUTPUT_FDS, absolute);
}

/** {@link ownOutputFiles} inside `root`, relative to it with "/" separators (as exclude prefixes are). */
export function ownOutputFilesUnder(root: string): string[] {
  const files = ownOutputFiles();
  if (files.length === 0) return [];
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    return [];
  }
  return files
    .map((file) => path.relative(real, file))
    .filter((relative) => relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative))
    .map((relative) => relative.split(path.sep).join("/"));
}
