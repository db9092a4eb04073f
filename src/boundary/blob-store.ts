/**
 * The repository's object database as a store of exact file contents: write blobs before an agent
 * runs, read them back to restore. Every call runs in `cwd` (any directory inside the work tree).
 */

import { readFileSync, type Stats, statSync } from "node:fs";
import { repoFacts } from "../code/git-facts.js";
import { LOOSE_WRITE_MAX_BYTES, looseObjectDir, writeLooseBlob } from "../code/loose-objects.js";
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
 * Most files a call writes itself: a process costs less than its fork beyond this (git hashes and
 * deflates on another core while this thread goes on), as a large linked folder's first listing does.
 */
const HERE_AT_MOST = 256;

/**
 * Writes the raw bytes of each regular file (absolute paths, symlinks followed) into the object
 * database, and maps each path to its blob id. Small files are written as loose objects by this
 * process (src/code/loose-objects.ts) where git would write them the same way; the rest go through
 * `git hash-object -w --no-filters --stdin-paths` (big lists in batches, two processes at a time). A
 * file that cannot be read is left out of the map (one bad path makes git stop, so a failing batch is
 * split in halves until the bad path is alone). Never rejects.
 */
export async function storeBlobs(cwd: string, files: readonly string[]): Promise<Map<string, string>> {
  const stored = new Map<string, string>();
  const usable = files.filter((file) => !file.includes("\n"));
  const rest = await storeSmallHere(cwd, usable, stored);
  const batches: string[][] = [];
  for (let i = 0; i < rest.length; i += BATCH) batches.push(rest.slice(i, i + BATCH));
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

/**
 * Stores the small regular files of `files` as loose objects without git, recording their ids in
 * `stored`; resolves to the files left for git (too big, not regular, or every file when this
 * repository's objects are git's alone to write). A file that vanished or cannot be read is left out.
 */
async function storeSmallHere(cwd: string, files: readonly string[], stored: Map<string, string>) {
  if (files.length === 0 || files.length > HERE_AT_MOST) return files;
  const facts = await repoFacts(cwd);
  const objects = facts === null ? null : looseObjectDir(facts);
  if (facts === null || objects === null) return files;
  const forGit: string[] = [];
  for (const file of files) {
    let stat: Stats | undefined;
    try {
      stat = statSync(file, { throwIfNoEntry: false });
    } catch {
      continue; // unreadable, as git would fail on it
    }
    if (stat === undefined) continue;
    if (!stat.isFile() || stat.size > LOOSE_WRITE_MAX_BYTES) {
      forGit.push(file);
      continue;
    }
    let content: Buffer;
    try {
      content = readFileSync(file);
    } catch {
      continue; // unreadable, as git would fail on it
    }
    try {
      stored.set(file, writeLooseBlob(objects, facts.format, content));
    } catch {
      forGit.push(file); // the object folder refused this process: git may know better
    }
  }
  return forGit;
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
