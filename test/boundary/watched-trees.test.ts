import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeBlobs } from "../../src/boundary/trees/blob-store.js";
import { diffListings, walkListing } from "../../src/boundary/trees/tree-listing.js";
import { WriteBoundary } from "../../src/boundary/write-boundary.js";
import type { ToolCall } from "../../src/runtimes/runtime.js";
import { git } from "./boundary-fixture.js";
import { treeState } from "./tree-state.js";

let parent: string;
let root: string;
let elsewhere: string;
beforeEach(() => {
  // A private parent folder, and a folder elsewhere (not below the parent).
  parent = mkdtempSync(path.join(tmpdir(), "sssf-watch-"));
  elsewhere = mkdtempSync(path.join(tmpdir(), "sssf-elsewhere-"));
  root = path.join(parent, "repo");
  mkdirSync(root);
  writeFileSync(path.join(root, "a.txt"), "a\n");
});
afterEach(() => {
  rmSync(parent, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

const put = (dir: string, file: string, content: string | Buffer) => {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), content);
};
const call = (args: unknown): ToolCall => ({
  tool: "write",
  name: "write",
  args,
  result: "",
  ok: true,
  startedAt: new Date(),
  endedAt: new Date(),
});
const boundary = (writes: string[]) =>
  new WriteBoundary({ root, writes, protectedFiles: [], exclude: () => [], ownPaths: [] });

function commitAll(): void {
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "start");
}

describe("folders reached through a committed link", () => {
  it("undoes what needs no copy in a folder elsewhere (new files, a mode) and reports the rest: sssf stores nothing outside the repository", async () => {
    put(elsewhere, "lib/one.js", "one\n");
    put(elsewhere, "lib/two.js", "two\n");
    put(elsewhere, "bin/run", "#!/bin/sh\n");
    chmodSync(path.join(elsewhere, "bin/run"), 0o755);
    symlinkSync(elsewhere, path.join(root, "vendor"));
    commitAll();
    const before = treeState(elsewhere);
    const guard = boundary(["**"]);
    const checkpoint = await guard.checkpoint();
    writeFileSync(path.join(elsewhere, "lib/one.js"), "pwned\n");
    renameSync(path.join(elsewhere, "lib/two.js"), path.join(elsewhere, "lib/moved.js"));
    chmodSync(path.join(elsewhere, "bin/run"), 0o644);
    put(elsewhere, "new/deep/file.js", "new\n");
    const breaches = await checkpoint.settle([]);

    // Outside the repository sssf keeps `lstat` facts only (issue 34, item 2): content cannot come back.
    const now = treeState(elsewhere);
    expect(now.get("bin/run")).toBe(before.get("bin/run"));
    expect(now.has("new")).toBe(false);
    expect(now.has("lib/moved.js")).toBe(false);
    expect(readFileSync(path.join(elsewhere, "lib/one.js"), "utf8")).toBe("pwned\n");
    expect(breaches.map((b) => `${path.relative(elsewhere, b.path)} ${b.change} ${b.restored}`)).toEqual([
      "bin/run modified true",
      "lib/moved.js added true",
      "lib/one.js modified false",
      "lib/two.js deleted false",
      "new added true",
    ]);
    expect(breaches.find((b) => b.path.endsWith("lib/one.js"))?.note).toContain("outside the repository");
    expect(breaches.find((b) => b.path.endsWith("bin/run"))?.note).toBe("its mode changed from 755 to 644");
  });

  it("reports a file too big to have been stored as not restored, saying why", async () => {
    put(elsewhere, "big.bin", Buffer.alloc(1024 * 1024 + 1, 7));
    symlinkSync(elsewhere, path.join(root, "vendor"));
    commitAll();
    const checkpoint = await boundary(["**"]).checkpoint();
    writeFileSync(path.join(elsewhere, "big.bin"), "small now\n");
    const [breach] = await checkpoint.settle([]);
    expect(breach).toMatchObject({
      path: path.join(elsewhere, "big.bin"),
      change: "modified",
      restored: false,
    });
    expect(breach?.note).toContain("sssf kept no copy of its content");
  });
});

describe("links the agent makes", () => {
  it("reports a write through a new link to a folder elsewhere as not restored, and leaves the link inside writes", async () => {
    put(elsewhere, "keep.txt", "keep\n");
    commitAll();
    const checkpoint = await boundary(["**"]).checkpoint();
    symlinkSync(elsewhere, path.join(root, "out"));
    writeFileSync(path.join(root, "out/keep.txt"), "changed through the link\n");
    const breaches = await checkpoint.settle([]);
    expect(breaches).toEqual([
      {
        path: path.join(elsewhere, "keep.txt"),
        change: "modified",
        rule: "outside_root",
        restored: false,
        note: expect.stringContaining("cannot be restored"),
      },
    ]);
  });

  it("judges a write tool's path through a link by its real target", async () => {
    writeFileSync(path.join(parent, "next.txt"), "next to the repo\n");
    symlinkSync("../next.txt", path.join(root, "inside.txt"));
    commitAll();
    const checkpoint = await boundary(["**"]).checkpoint();
    writeFileSync(path.join(root, "inside.txt"), "through the link\n");
    const breaches = await checkpoint.settle([call({ path: "inside.txt" })]);
    expect(breaches).toEqual([
      {
        path: "../next.txt",
        change: "modified",
        rule: "outside_root",
        restored: false,
        note: expect.stringContaining("outside the repository"),
      },
    ]);
    expect(readFileSync(path.join(parent, "next.txt"), "utf8")).toBe("through the link\n");
  });
});

describe("tree listings", () => {
  it("hash only files whose metadata moved, and count a touch without new content as nothing", async () => {
    put(elsewhere, "a.js", "a\n");
    put(elsewhere, "b.js", "b\n");
    const before = walkListing(elsewhere, { maxEntries: 100 });
    commitAll();
    const ids = await storeBlobs(root, [path.join(elsewhere, "a.js"), path.join(elsewhere, "b.js")]);
    for (const [name, entry] of before.entries)
      if (name !== "") entry.oid = ids.get(path.join(elsewhere, name)) ?? null;
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(elsewhere, "a.js"), later, later);
    writeFileSync(path.join(elsewhere, "b.js"), "B\n");
    const after = walkListing(elsewhere, { maxEntries: 100 });
    expect(await diffListings(elsewhere, before, after)).toEqual([
      { path: "b.js", change: "modified", what: "content" },
    ]);
  });

  it("stop at their entry cap and say so", () => {
    for (let i = 0; i < 5; i++) put(elsewhere, `f${i}.txt`, "x");
    expect(walkListing(elsewhere, { maxEntries: 3 }).truncated).toBe(true);
    expect(walkListing(elsewhere, { maxEntries: 10 }).entries.size).toBe(6);
  });
});
