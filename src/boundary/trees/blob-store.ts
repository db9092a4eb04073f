/**
 * The repository's object database as a store of exact file contents: write blobs before an agent
 * runs, read them back to restore. Every call runs in `cwd` (any directory inside the work tree).
 */

import { lstatSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { mapLimited } from "../../code/map-limited.js";
import { runGitBytes } from "../../code/run-git.js";
import { readRegularFile } from "../../code/safe-read.js";

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
 * Writes the files at `files` (paths git may read) as blobs, big lists in batches, two processes at a
 * time; a failing batch is split in halves until the bad path is alone. Ids by path. Never rejects.
 */
async function hashAll(cwd: string, files: readonly string[]): Promise<Map<string, string>> {
  const stored = new Map<string, string>();
  const batches: string[][] = [];
  for (let i = 0; i < files.length; i += BATCH) batches.push(files.slice(i, i + BATCH));
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
 * Contents this process has read, written as blobs by git: each is staged as a file of a private
 * folder (mode 0700) and `git hash-object -w --no-filters --stdin-paths` reads those copies, so git
 * never opens a path of the tree an agent could have swapped for a link since it was read.
 */
export class ContentBatch {
  #dir: string | null = null;
  readonly #files: string[] = [];

  /** Stages `content`; returns its index in `store`'s answer, or -1 when it could not be staged. Never throws. */
  add(content: Buffer): number {
    try {
      this.#dir ??= mkdtempSync(path.join(tmpdir(), "sssf-blobs-"));
      const file = path.join(this.#dir, String(this.#files.length));
      writeFileSync(file, content, { mode: 0o600 });
      this.#files.push(file);
      return this.#files.length - 1;
    } catch {
      return -1;
    }
  }

  /**
   * Writes every staged content into `cwd`'s object database and empties the batch: ids by index, null
   * where git refused. Never rejects.
   */
  async store(cwd: string): Promise<(string | null)[]> {
    try {
      const ids = this.#files.length === 0 ? new Map<string, string>() : await hashAll(cwd, this.#files);
      return this.#files.map((file) => ids.get(file) ?? null);
    } finally {
      if (this.#dir !== null) rmSync(this.#dir, { recursive: true, force: true });
      this.#dir = null;
      this.#files.length = 0;
    }
  }
}

/** Files up to this size are read by sssf itself and handed to git as a copy; bigger ones by path. */
const READ_UP_TO_BYTES = 64 * 1024 * 1024;

/**
 * Writes the bytes of each regular file (absolute paths; a symlink, FIFO, socket, device or folder is
 * never read and never stored) into the object database, and maps each stored path to its blob id.
 * Files up to 64 MiB are read by this process as `readRegularFile` reads them (no link followed, no
 * more bytes than `lstat` said) and git stores that copy (`ContentBatch`); bigger ones go to `git
 * hash-object -w --no-filters --stdin-paths` once `lstat` said they are regular files. A file that
 * vanished, changed kind or cannot be read is left out. Never rejects.
 */
export async function storeBlobs(cwd: string, files: readonly string[]): Promise<Map<string, string>> {
  const batch = new ContentBatch();
  const staged: [string, number][] = [];
  const big: string[] = [];
  for (const file of files) {
    if (file.includes("\n")) continue;
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) continue;
    if (stat.size > READ_UP_TO_BYTES) {
      big.push(file);
      continue;
    }
    const content = readRegularFile(file, stat);
    if (content !== null) staged.push([file, batch.add(content)]);
  }
  const ids = await batch.store(cwd);
  const stored = await hashAll(cwd, big);
  for (const [file, index] of staged) {
    const id = ids[index];
    if (id !== undefined && id !== null) stored.set(file, id);
  }
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
