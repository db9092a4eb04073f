import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { diffSnapshots, snapshotWorkingTree } from "../../src/code/working-tree.js";
import { git, initRepo, makeTempDir, removeTempDir, writeFiles } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

/** Runs `phase` between two snapshots and returns the diff. */
async function changesDuring(root: string, phase: () => void, exclude?: string[]) {
  const before = await snapshotWorkingTree(root, exclude ? { exclude } : {});
  phase();
  const after = await snapshotWorkingTree(root, exclude ? { exclude } : {});
  return diffSnapshots(before, after);
}

describe("snapshotWorkingTree in git", () => {
  it("reports modified, added, deleted and renamed paths, sorted", async () => {
    dir = makeTempDir("tree");
    initRepo(dir, {
      "a.txt": "a\n",
      "b.txt": "b\n",
      "src/old.ts": "export const x = 1;\n",
      "keep.txt": "k\n",
    });
    const changes = await changesDuring(dir, () => {
      fs.writeFileSync(path.join(dir, "a.txt"), "a changed\n");
      fs.rmSync(path.join(dir, "b.txt"));
      writeFiles(dir, { "new/c.txt": "c\n" });
      fs.renameSync(path.join(dir, "src/old.ts"), path.join(dir, "src/new.ts"));
    });
    expect(changes).toEqual([
      { path: "a.txt", change: "modified" },
      { path: "b.txt", change: "deleted" },
      { path: "new/c.txt", change: "added" },
      { path: "src/new.ts", change: "renamed", previousPath: "src/old.ts" },
    ]);
  });

  it("treats a staged git mv as a rename", async () => {
    dir = makeTempDir("tree");
    initRepo(dir, { "docs/guide.md": "# Guide\n" });
    const changes = await changesDuring(dir, () => git(dir, "mv", "docs/guide.md", "docs/manual.md"));
    expect(changes).toEqual([{ path: "docs/manual.md", change: "renamed", previousPath: "docs/guide.md" }]);
  });

  it("counts only what the phase did to files that were already dirty", async () => {
    dir = makeTempDir("tree");
    initRepo(dir, { "touched.txt": "1\n", "untouched.txt": "1\n", "reverted.txt": "1\n" });
    writeFiles(dir, {
      "touched.txt": "2\n",
      "untouched.txt": "2\n",
      "reverted.txt": "2\n",
      "scratch.txt": "s\n",
    });
    const changes = await changesDuring(dir, () => {
      fs.writeFileSync(path.join(dir, "touched.txt"), "3\n");
      fs.writeFileSync(path.join(dir, "reverted.txt"), "1\n");
    });
    expect(changes).toEqual([
      { path: "reverted.txt", change: "modified" },
      { path: "touched.txt", change: "modified" },
    ]);
  });

  it("ignores excluded prefixes and gitignored files", async () => {
    dir = makeTempDir("tree");
    initRepo(dir, { ".gitignore": "dist/\n", "main.ts": "1\n" });
    const changes = await changesDuring(
      dir,
      () => writeFiles(dir, { "adws/adw_data/sessions/x.json": "{}", "dist/out.js": "x", "main.ts": "2\n" }),
      ["adws/adw_data"],
    );
    expect(changes).toEqual([{ path: "main.ts", change: "modified" }]);
  });

  it("still sees work the phase committed", async () => {
    dir = makeTempDir("tree");
    initRepo(dir, { "a.txt": "1\n", "gone.txt": "g\n" });
    const changes = await changesDuring(dir, () => {
      writeFiles(dir, { "a.txt": "2\n", "b.txt": "b\n" });
      fs.rmSync(path.join(dir, "gone.txt"));
      git(dir, "add", "-A");
      git(dir, "commit", "-q", "-m", "agent commit");
    });
    expect(changes).toEqual([
      { path: "a.txt", change: "modified" },
      { path: "b.txt", change: "added" },
      { path: "gone.txt", change: "deleted" },
    ]);
  });

  it("works in a repository without commits", async () => {
    dir = makeTempDir("tree");
    initRepo(dir);
    writeFiles(dir, { "a.txt": "1\n", "b.txt": "b\n" });
    const before = await snapshotWorkingTree(dir);
    expect(before.git).toBe(true);
    expect([...before.entries.keys()].sort()).toEqual(["a.txt", "b.txt"]);
    writeFiles(dir, { "a.txt": "2\n", "c.txt": "c\n" });
    fs.rmSync(path.join(dir, "b.txt"));
    expect(diffSnapshots(before, await snapshotWorkingTree(dir))).toEqual([
      { path: "a.txt", change: "modified" },
      { path: "b.txt", change: "deleted" },
      { path: "c.txt", change: "added" },
    ]);
  });

  it("lists nothing for a clean tree and limits itself to a subdirectory root", async () => {
    dir = makeTempDir("tree");
    initRepo(dir, { "pkg/a.txt": "1\n", "other/b.txt": "1\n" });
    const root = path.join(dir, "pkg");
    expect((await snapshotWorkingTree(root)).entries.size).toBe(0);
    const changes = await changesDuring(root, () =>
      writeFiles(dir, { "pkg/a.txt": "2\n", "pkg/sub/n.txt": "n", "other/b.txt": "2\n" }),
    );
    expect(changes).toEqual([
      { path: "a.txt", change: "modified" },
      { path: "sub/n.txt", change: "added" },
    ]);
  });

  it("stays fast on a repository with 5,000 files", async () => {
    dir = makeTempDir("tree");
    const files: Record<string, string> = {};
    for (let i = 0; i < 5000; i++) files[`d${i % 50}/f${i}.txt`] = `file ${i}\n`;
    initRepo(dir, files);
    const started = Date.now();
    const changes = await changesDuring(dir, () => writeFiles(dir, { "d7/f7.txt": "changed\n" }));
    // Two snapshots and a diff; generous because CI machines are slow, a full hash walk is far slower.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(changes).toEqual([{ path: "d7/f7.txt", change: "modified" }]);
  }, 180_000);
});

describe("snapshotWorkingTree outside git", () => {
  it("walks the tree, skipping node_modules and excluded prefixes", async () => {
    dir = makeTempDir("plain");
    writeFiles(dir, {
      "a.txt": "1\n",
      "b.txt": "b\n",
      "old.md": "# doc\n",
      "node_modules/m/i.js": "x",
      "data/x": "x",
    });
    const before = await snapshotWorkingTree(dir, { exclude: ["data"] });
    expect(before.git).toBe(false);
    expect([...before.entries.keys()].sort()).toEqual(["a.txt", "b.txt", "old.md"]);
    writeFiles(dir, { "a.txt": "2\n", "n/c.txt": "c\n", "node_modules/m/i.js": "y", "data/x": "y" });
    fs.rmSync(path.join(dir, "b.txt"));
    fs.renameSync(path.join(dir, "old.md"), path.join(dir, "new.md"));
    expect(diffSnapshots(before, await snapshotWorkingTree(dir, { exclude: ["data"] }))).toEqual([
      { path: "a.txt", change: "modified" },
      { path: "b.txt", change: "deleted" },
      { path: "n/c.txt", change: "added" },
      { path: "new.md", change: "renamed", previousPath: "old.md" },
    ]);
  });

  it("sees no change when nothing changed", async () => {
    dir = makeTempDir("plain");
    writeFiles(dir, { "a.txt": "1\n", empty1: "", empty2: "" });
    const before = await snapshotWorkingTree(dir);
    expect(diffSnapshots(before, await snapshotWorkingTree(dir))).toEqual([]);
  });
});
