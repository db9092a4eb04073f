/**
 * The repository's object database as a store of exact file contents: write blobs before an agent
 * runs, read them back to restore. Every call runs in `cwd` (any directory inside the work tree).
 */

import { mapLimited } from "../code/map-limited.js";
import { runGitBytes } from "../code/run-git.js";

/** Output of `cat-file`: the largest file ever restored. */
const MAX_BUFFER = 1024 * 1024 * 1024;

/** Git's stdout as bytes, or null when git fails (a missing object, an unreadable path). */
function gitRun(cwd: string, args: string[], input: string | null): Promise<Buffer | null> {
  return runGitBytes(cwd, args, {
    env: { GIT_LITERAL_PATHSPECS: "1" },
    input: input ?? "",
    maxBuffer: MAX_BUFFER,
  }).catch(() => null);
}

async function hashBatch(cwd: string, files: readonly string[]): Promise<string[] | null> {
  const output = await gitRun(
    cwd,
    ["hash-object", "-w", "--no-filters", "--stdin-paths"],
    `${files.join("\n")}\n`,
  );
  if (output === null) return null;
  const ids = output.toString("utf8").split("\n").filter(Boolean);
  return ids.length === files.length ? ids : null;
}

/** Paths per `git hash-object` process. */
const BATCH = 4000;

/**
 * Writes the raw bytes of each regular file (absolute paths, symlinks followed) into the object
 * database with `git hash-object -w --no-filters --stdin-paths` (big lists in batches, two processes
 * at a time), and maps each path to its blob id. A file that cannot be read is left out of the map
 * (one bad path makes git stop, so a failing batch is split in halves until the bad path is alone).
 * Never rejects.
 */
export async function storeBlobs(cwd: string, files: readonly string[]): Promise<Map<string, string>> {
  const stored = new Map<string, string>();
  const usable = files.filter((file) => !file.includes("\n"));
  const batches: string[][] = [];
  for (let i = 0; i < usable.length; i += BATCH) batches.push(usable.slice(i, i + BATCH));
  const store = async (batch: string[]): Promise<void> => {
    const ids = await hashBatch(cwd, batch);
    if (ids !== null) {
      for (const [i, file] of batch.entries()) stored.set(file, ids[i] as string);
    } else if (batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      await store(batch.slice(0, half));
      await store(batch.slice(half));
    }
  };
  await mapLimited(batches, 2, store);
  return stored;
}

/** The exact content of blob `oid`, or null when the object database lacks it. Never rejects. */
export function readBlob(cwd: string, oid: string): Promise<Buffer | null> {
  return gitRun(cwd, ["cat-file", "blob", oid], null);
}

/** One entry of a commit's tree: its mode (`100644`, `100755`, `120000`, `160000`) and object id. */
export interface TreeEntry {
  mode: string;
  oid: string;
}

/**
 * The entries of `commit` at `paths` (relative to `cwd`, files or directories; a directory is expanded
 * to every file below it). Paths the commit lacks are absent from the map; an empty map when
 * `commit` is null or git fails. Never rejects.
 */
export async function treeEntriesAt(
  cwd: string,
  commit: string | null,
  paths: readonly string[],
): Promise<Map<string, TreeEntry>> {
  const entries = new Map<string, TreeEntry>();
  if (commit === null || paths.length === 0) return entries;
  const output = await gitRun(cwd, ["ls-tree", "-r", "-z", commit, "--", ...paths], null);
  for (const record of (output?.toString("utf8") ?? "").split("\0")) {
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const [mode, , oid] = record.slice(0, tab).split(" ");
    if (mode !== undefined && oid !== undefined) entries.set(record.slice(tab + 1), { mode, oid });
  }
  return entries;
}
