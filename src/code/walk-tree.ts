import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isExcluded } from "./exclude-prefixes.js";
import { contentSha1 } from "./fingerprint.js";
import { mapLimited } from "./map-limited.js";
import { readRegularFile } from "./safe-read.js";

/** Directories never worth watching outside git. */
const SKIPPED_NAMES = new Set([".git", "node_modules"]);
/** Files at least this big are fingerprinted by size and mtime only. */
const HASH_BELOW_BYTES = 1024 * 1024;
/** Files below this size are read in one synchronous call. */
const READ_SYNC_BELOW_BYTES = 64 * 1024;

/**
 * Fingerprints every file under `root` for a directory without git: `<size>:<sha1>` below 1 MB,
 * `<size>:mtime:<mtimeMs>` above, `link:<target>` for symlinks (never followed). Skips `.git`,
 * `node_modules` and the excluded prefixes. Unreadable entries are skipped. Never rejects.
 */
export async function walkTree(root: string, excluded: readonly string[]): Promise<Map<string, string>> {
  const files: string[] = [];
  const links: string[] = [];
  const pending: string[] = [""];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let entries: fs.Dirent[];
    try {
      // Synchronous, like the small files' reads below: one listing costs less than a trip to the pool.
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const relative = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (SKIPPED_NAMES.has(entry.name) || isExcluded(relative, excluded)) continue;
      if (entry.isDirectory()) pending.push(relative);
      else if (entry.isFile()) files.push(relative);
      else if (entry.isSymbolicLink()) links.push(relative);
    }
  }
  const fingerprints = new Map<string, string>();
  const fileFingerprints = await mapLimited(files, 32, (file) => fingerprintFile(path.join(root, file)));
  files.forEach((file, i) => {
    const fingerprint = fileFingerprints[i];
    if (fingerprint) fingerprints.set(file, fingerprint);
  });
  for (const link of links) {
    try {
      fingerprints.set(link, `link:${await fs.promises.readlink(path.join(root, link))}`);
    } catch {
      // vanished while walking: absent
    }
  }
  return fingerprints;
}

async function fingerprintFile(absolute: string): Promise<string | null> {
  try {
    // A small file is read and hashed synchronously: the thread pool's round trips for stat, open,
    // read and close cost more than the reading (about 1 ms of every send in a tree of a few files).
    // lstat, and a read that follows no link and opens no FIFO or device (src/code/safe-read.ts).
    const stat = fs.lstatSync(absolute);
    if (!stat.isFile()) return null;
    if (stat.size >= HASH_BELOW_BYTES) return `${stat.size}:mtime:${stat.mtimeMs}`;
    if (stat.size < READ_SYNC_BELOW_BYTES) {
      const content = readRegularFile(absolute, stat);
      return content === null ? null : `${stat.size}:${createHash("sha1").update(content).digest("hex")}`;
    }
    return `${stat.size}:${await contentSha1(absolute, stat)}`;
  } catch {
    return null;
  }
}
