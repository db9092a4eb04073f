/**
 * The repository's object database as a store of exact file contents: write blobs before an agent
 * runs, read them back to restore. Every call runs in `cwd` (any directory inside the work tree).
 */

import { lstatSync } from "node:fs";
import { repoFacts } from "../code/git-facts.js";
import { looseObjectDir, writeLooseBlob } from "../code/loose-objects.js";
import { mapLimited } from "../code/map-limited.js";
import { runGitBytes } from "../code/run-git.js";
import { readRegularFile } from "../code/safe-read.js";

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

/** Files up to this size are read by sssf itself and written as loose objects (where it may write them). */
const HERE_UP_TO_BYTES = 64 * 1024 * 1024;

/**
 * Writes the bytes of each regular file (absolute paths; a symlink, FIFO, socket, device or folder is
 * never read and never stored) into the object database, and maps each stored path to its blob id.
 * Files are read by this process as `readRegularFile` reads them (no link followed, no more bytes than
 * `lstat` said) and written as loose objects (src/code/loose-objects.ts) where git would write them the
 * same way; otherwise, and for files over 64 MiB, they go through `git hash-object -w --no-filters
 * --stdin-paths` once `lstat` said they are regular files (big lists in batches, two processes at a
 * time; a failing batch is split in halves until the bad path is alone). Never rejects.
 */
export async function storeBlobs(cwd: string, files: readonly string[]): Promise<Map<string, string>> {
  const stored = new Map<string, string>();
  const regular = files.filter(
    (file) => !file.includes("\n") && lstatSync(file, { throwIfNoEntry: false })?.isFile() === true,
  );
  const rest = await storeHere(cwd, regular, stored);
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
 * Stores the regular files of `files` up to 64 MiB as loose objects without git, recording their ids
 * in `stored`; resolves to the files left for git (too big, or every file when this repository's
 * objects are git's alone to write). A file that vanished, changed kind or cannot be read is left out.
 */
async function storeHere(cwd: string, files: readonly string[], stored: Map<string, string>) {
  if (files.length === 0) return files;
  const facts = await repoFacts(cwd);
  const objects = facts === null ? null : looseObjectDir(facts);
  if (facts === null || objects === null) return files;
  const forGit: string[] = [];
  for (const file of files) {
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) continue;
    if (stat.size > HERE_UP_TO_BYTES) {
      forGit.push(file);
      continue;
    }
    const content = readRegularFile(file, stat);
    if (content === null) continue; // swapped, grown or unreadable since it was listed
    try {
      stored.set(file, writeLooseBlob(objects, facts.format, content));
    } catch {
      forGit.push(file); // the object folder refused this process: git may know better
    }
  }
  return forGit;
}

/** Writes `content` (already read) as a blob; null when the object database refuses it. Never throws. */
export async function storeContent(cwd: string, content: Buffer): Promise<string | null> {
  const facts = await repoFacts(cwd);
  const objects = facts === null ? null : looseObjectDir(facts);
  if (facts === null || objects === null) return null;
  try {
    return writeLooseBlob(objects, facts.format, content);
  } catch {
    return null;
  }
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
