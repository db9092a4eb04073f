import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContentBatch, readBlob, storeBlobs } from "../../src/boundary/trees/blob-store.js";
import { forgetAllRepoFacts } from "../../src/code/git-facts.js";
import { git, initRepo, makeTempDir, removeTempDir } from "../code/fixtures.js";

let dir: string;
beforeEach(() => {
  dir = makeTempDir("blobs");
  forgetAllRepoFacts();
});
afterEach(() => removeTempDir(dir));

/** Writes `files` (name → bytes) under the repository and returns their absolute paths. */
function put(files: Record<string, string | Buffer>): string[] {
  return Object.entries(files).map(([name, content]) => {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    return file;
  });
}

/** What git itself makes of a file: its blob id, without writing it. */
const gitId = (file: string) => git(dir, "hash-object", "--no-filters", file).trim();

/** The loose object files below `.git/objects` (not packs, not info). */
function looseFiles(): string[] {
  const objects = path.join(dir, ".git/objects");
  return readdirSync(objects)
    .filter((name) => /^[0-9a-f]{2}$/.test(name))
    .flatMap((name) => readdirSync(path.join(objects, name)).map((rest) => `${name}${rest}`));
}

describe("storeBlobs", () => {
  it("writes files as blobs that git reads back byte for byte under its own ids", async () => {
    initRepo(dir, { "seed.txt": "seed\n" });
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13, 0x80]);
    const files = put({ "a.txt": "hello\n", "bin.dat": bytes, empty: "", "nested/ü.md": "ü\r\n" });
    const ids = await storeBlobs(dir, files);
    expect(ids.size).toBe(4);
    for (const file of files) {
      const oid = ids.get(file) as string;
      expect(oid).toBe(gitId(file));
      expect(git(dir, "cat-file", "-t", oid).trim()).toBe("blob");
      expect(await readBlob(dir, oid)).toEqual(await readBlob(dir, gitId(file)));
    }
    expect(await readBlob(dir, ids.get(files[1] as string) as string)).toEqual(bytes);
    // git's own check of every object it has: no corrupt or misnamed loose object.
    git(dir, "fsck", "--no-dangling", "--strict");
    // No temporary file is left beside the objects, and each object is read-only as git makes it.
    expect(looseFiles().some((name) => name.includes("tmp"))).toBe(false);
    const oid = ids.get(files[0] as string) as string;
    expect(statSync(path.join(dir, ".git/objects", oid.slice(0, 2), oid.slice(2))).mode & 0o222).toBe(0);
  });

  it("keeps generated contents exact (fixed seed)", async () => {
    initRepo(dir);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), async (content) => {
        const [file] = put({ "gen.bin": Buffer.from(content) });
        const oid = (await storeBlobs(dir, [file as string])).get(file as string);
        expect(oid).toBe(gitId(file as string));
        expect(await readBlob(dir, oid as string)).toEqual(Buffer.from(content));
      }),
      { seed: 20261205, numRuns: 60 },
    );
  });

  it("never follows a symlink, leaves out what cannot be read, and stores the rest", async () => {
    initRepo(dir);
    const [target, secret] = put({ "target.txt": "through a link\n", "locked.txt": "no\n" });
    const link = path.join(dir, "link.txt");
    symlinkSync("target.txt", link);
    const missing = path.join(dir, "missing.txt");
    const folder = path.join(dir, "folder");
    mkdirSync(folder);
    chmodSync(secret as string, 0o000);
    const unreadable = process.getuid?.() !== 0; // root reads a mode-000 file anyway
    const ids = await storeBlobs(dir, [link, missing, folder, secret as string, target as string]);
    // A link is never followed: it could lead to ~/.netrc (issue 34, items 2 and 3).
    expect(ids.has(link)).toBe(false);
    expect(ids.get(target as string)).toBe(gitId(target as string));
    expect(ids.has(missing)).toBe(false);
    expect(ids.has(folder)).toBe(false);
    expect(ids.has(secret as string)).toBe(!unreadable);
  });

  it("sends big files to git, and an object already there is not written again", async () => {
    initRepo(dir, { "seed.txt": "seed\n" });
    const big = Buffer.alloc(1024 * 1024 + 1, 7);
    const [bigFile, seed] = put({ "big.bin": big, "seed-copy.txt": "seed\n" });
    const before = statSync(path.join(dir, ".git/objects", gitId(seed as string).slice(0, 2))).mtimeMs;
    const ids = await storeBlobs(dir, [bigFile as string, seed as string]);
    expect(ids.get(bigFile as string)).toBe(gitId(bigFile as string));
    expect(await readBlob(dir, ids.get(bigFile as string) as string)).toEqual(big);
    expect(ids.get(seed as string)).toBe(gitId(seed as string));
    const oid = gitId(seed as string);
    expect(statSync(path.join(dir, ".git/objects", oid.slice(0, 2))).mtimeMs).toBe(before);
  });

  it("writes sha256 ids in a sha256 repository", async () => {
    git(dir, "init", "-q", "--object-format=sha256", "-b", "main");
    const [file] = put({ "a.txt": "sha256\n" });
    const oid = (await storeBlobs(dir, [file as string])).get(file as string) as string;
    expect(oid).toHaveLength(64);
    expect(oid).toBe(gitId(file as string));
    git(dir, "fsck", "--no-dangling");
  });

  it("stores a shared repository's files through git, with git's modes", async () => {
    git(dir, "init", "-q", "--shared=group", "-b", "main");
    const [file] = put({ "a.txt": "shared\n" });
    const oid = (await storeBlobs(dir, [file as string])).get(file as string) as string;
    expect(oid).toBe(gitId(file as string));
    // git widened the object's mode for the group; a file this process wrote would not be.
    expect(statSync(path.join(dir, ".git/objects", oid.slice(0, 2), oid.slice(2))).mode & 0o040).toBe(0o040);
  });
});

describe("ContentBatch", () => {
  it("stores the bytes this process read, whatever the tree holds now, and answers by index", async () => {
    initRepo(dir);
    const [file] = put({ "a.txt": "read before\n" });
    const batch = new ContentBatch();
    const first = batch.add(Buffer.from("read before\n"));
    // The path becomes a link to something else before git runs: git never opens the path.
    writeFileSync(path.join(dir, "elsewhere.txt"), "not this\n");
    rmSync(file as string);
    symlinkSync("elsewhere.txt", file as string);
    const second = batch.add(Buffer.from([0, 255, 10]));
    const ids = await batch.store(dir);
    expect(ids).toHaveLength(2);
    const want = execFileSync("git", ["hash-object", "--stdin"], { cwd: dir, input: "read before\n" });
    expect(ids[first]).toBe(want.toString().trim());
    expect(await readBlob(dir, ids[first] as string)).toEqual(Buffer.from("read before\n"));
    expect(await readBlob(dir, ids[second] as string)).toEqual(Buffer.from([0, 255, 10]));
    // Emptied: a second store writes nothing.
    expect(await batch.store(dir)).toEqual([]);
  });

  it("answers null for every content when git refuses (no repository)", async () => {
    const batch = new ContentBatch();
    batch.add(Buffer.from("x\n"));
    const outside = makeTempDir("blobs-outside");
    try {
      expect(await batch.store(outside)).toEqual([null]);
    } finally {
      removeTempDir(outside);
    }
  });
});
