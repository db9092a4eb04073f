import fs, { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { changeSinceListing, listDirectory, tickOf } from "../../src/boundary/trees/dir-listing.js";
import { useTempDir } from "../trace/trace-fixtures.js";

const dir = useTempDir("dir-listing");

describe("a shallow listing of a parent folder", () => {
  it("records files by their metadata alone (no content read), folders by kind alone, and sees what changed since", async () => {
    const parent = dir();
    mkdirSync(path.join(parent, "sibling-repo"));
    writeFileSync(path.join(parent, "sibling-repo/README.md"), "a neighbour\n");
    writeFileSync(path.join(parent, "notes.txt"), "mine\n");
    symlinkSync("notes.txt", path.join(parent, "link"));
    const listing = listDirectory(parent, {});
    expect([...listing.keys()].sort()).toEqual(["link", "notes.txt", "sibling-repo"]);
    expect(listing.get("sibling-repo")?.kind).toBe("directory");
    // Outside the repository sssf keeps no copy of any file (issue 34, item 2).
    expect(listing.get("notes.txt")).toMatchObject({ kind: "file", size: 5, oid: null });
    expect(listing.get("link")).toMatchObject({ kind: "symlink", target: "notes.txt" });

    // Work inside a sibling folder is not a change of the listing; the folder going, or a file in its place, is.
    writeFileSync(path.join(parent, "sibling-repo/README.md"), "edited inside\n");
    const at = (name: string) => path.join(parent, name);
    expect(await changeSinceListing(at("sibling-repo"), listing.get("sibling-repo"))).toBeNull();
    rmSync(at("sibling-repo"), { recursive: true });
    expect(await changeSinceListing(at("sibling-repo"), listing.get("sibling-repo"))).toBe("deleted");
    writeFileSync(at("sibling-repo"), "now a file\n");
    expect(await changeSinceListing(at("sibling-repo"), listing.get("sibling-repo"))).toBe("modified");
    writeFileSync(at("notes.txt"), "changed\n");
    expect(await changeSinceListing(at("notes.txt"), listing.get("notes.txt"))).toBe("modified");
    expect(await changeSinceListing(at("new.txt"), undefined)).toBeNull();
  });
});

describe("listing the same folder again", () => {
  it("takes the names of a folder that stood still from the previous listing once they are settled, and reads any change again", async () => {
    const parent = dir();
    for (let i = 0; i < 50; i++) mkdirSync(path.join(parent, `repo-${i}`));
    for (let i = 0; i < 20; i++) writeFileSync(path.join(parent, `file-${i}.txt`), `file ${i}\n`);
    const options = { accept: (name: string) => name !== "repo-0" };
    const tick = () => new Promise((resolve) => setTimeout(resolve, 150));
    const readdir = vi.spyOn(fs, "readdirSync");
    // Reads of this folder only: the test runner may read others meanwhile.
    const reads = () => readdir.mock.calls.filter(([folder]) => folder === parent).length;
    try {
      const first = await listDirectory(parent, options);
      expect(first.size).toBe(69);
      expect(first.has("repo-0")).toBe(false);
      // Read again within the tick the folder was first seen in: a name added in that tick would
      // not have moved its times.
      const again = await listDirectory(parent, { ...options, previous: first });
      expect(reads()).toBe(2);
      await tick();
      const settled = await listDirectory(parent, { ...options, previous: again });
      expect(reads()).toBe(3);
      const second = await listDirectory(parent, { ...options, previous: settled });
      expect(reads()).toBe(3);
      expect(second).toEqual(first);

      // A file rewritten in place leaves the folder's times alone: its own entry is still fresh.
      writeFileSync(path.join(parent, "file-3.txt"), "rewritten, longer\n");
      const third = await listDirectory(parent, { ...options, previous: second });
      expect(reads()).toBe(3);
      expect(third.get("file-3.txt")).toMatchObject({ size: 18, oid: null });

      // A name added, removed or renamed moves the folder's times: its names are read again, until
      // they settle anew.
      writeFileSync(path.join(parent, "new.txt"), "new\n");
      const fourth = await listDirectory(parent, { ...options, previous: third });
      expect(reads()).toBe(4);
      expect(fourth.get("new.txt")).toMatchObject({ kind: "file", size: 4 });
      const fifth = await listDirectory(parent, { ...options, previous: fourth });
      expect(reads()).toBe(5);
      expect(fifth).toEqual(fourth);
      rmSync(path.join(parent, "file-0.txt"));
      renameSync(path.join(parent, "file-1.txt"), path.join(parent, "renamed.txt"));
      const sixth = await listDirectory(parent, { ...options, previous: fifth });
      expect(reads()).toBe(6);
      expect(sixth.has("file-0.txt")).toBe(false);
      expect(sixth.has("file-1.txt")).toBe(false);
      expect(sixth.get("renamed.txt")).toMatchObject({ kind: "file", size: 7 });

      // Another folder in its place (same name, new inode) is read afresh.
      await tick();
      const seventh = await listDirectory(parent, { ...options, previous: sixth });
      const moved = `${parent}-old`;
      renameSync(parent, moved);
      mkdirSync(parent);
      writeFileSync(path.join(parent, "only.txt"), "only\n");
      const other = await listDirectory(parent, { ...options, previous: seventh });
      expect([...other.keys()]).toEqual(["only.txt"]);
      rmSync(moved, { recursive: true, force: true });

      // A folder gone gives an empty listing, and a listing of nothing carries no names over.
      rmSync(parent, { recursive: true });
      const gone = await listDirectory(parent, { ...options, previous: other });
      expect(gone.size).toBe(0);
      mkdirSync(parent);
      writeFileSync(path.join(parent, "back.txt"), "back\n");
      expect([...(await listDirectory(parent, { ...options, previous: gone })).keys()]).toEqual(["back.txt"]);
    } finally {
      readdir.mockRestore();
    }
  });

  it("waits a whole tick of the folder's timestamps: 100 ms where they have fractions, 2.5 s where they are whole seconds", () => {
    const times = (mtimeMs: number, ctimeMs: number) => ({ mtimeMs, ctimeMs }) as fs.Stats;
    expect(tickOf(times(1_733_000_000_123.456, 1_733_000_000_123.456))).toBe(100);
    expect(tickOf(times(1_733_000_000_000, 1_733_000_000_500))).toBe(100);
    expect(tickOf(times(1_733_000_000_000, 1_733_000_002_000))).toBe(2500);
  });
});
