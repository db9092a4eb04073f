import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readBlob, storeBlobs } from "../../src/boundary/blob-store.js";
import { forgetAllRepoFacts, repoFacts } from "../../src/code/git-facts.js";
import { looseObjectDir } from "../../src/code/loose-objects.js";
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
  it("writes small files as loose objects, without git, that git reads back byte for byte under its own ids", async () => {
    initRepo(dir, { "seed.txt": "seed\n" });
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13, 0x80]);
    const files = put({ "a.txt": "hello\n", "bin.dat": bytes, empty: "", "nested/ü.md": "ü\r\n" });
    await repoFacts(dir);
    // Without a git to run: every id below comes from this process.
    const pathBefore = process.env.PATH;
    process.env.PATH = path.join(dir, "no-git-here");
    let ids: Map<string, string>;
    try {
      ids = await storeBlobs(dir, files);
    } finally {
      process.env.PATH = pathBefore;
    }
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

  it("leaves a shared repository's objects, and a relocated object folder, to git", () => {
    git(dir, "init", "-q", "--shared=group", "-b", "main");
    expect(looseObjectDir({ commonDir: path.join(dir, ".git") })).toBeNull();
    const plain = makeTempDir("blobs-plain");
    try {
      git(plain, "init", "-q");
      const facts = { commonDir: path.join(plain, ".git") };
      expect(looseObjectDir(facts)).toBe(path.join(plain, ".git/objects"));
      expect(looseObjectDir(facts, { GIT_OBJECT_DIRECTORY: path.join(dir, "elsewhere") })).toBeNull();
      git(plain, "config", "extensions.compatObjectFormat", "sha256");
      expect(looseObjectDir(facts)).toBeNull();
    } finally {
      removeTempDir(plain);
    }
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
