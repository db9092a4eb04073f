import { readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { snapshotWorkingTree } from "../../src/code/working-tree.js";
import { RunChanges } from "../../src/engine/run-changes.js";
import { git, initRepo, makeTempDir, removeTempDir, writeFiles } from "../code/fixtures.js";

let dir: string;
beforeEach(() => {
  dir = makeTempDir("run-changes");
});
afterEach(() => removeTempDir(dir));

const names = (changes: readonly { path: string; change: string; previousPath?: string }[]) =>
  changes.map((c) => `${c.change} ${c.previousPath ? `${c.previousPath} -> ` : ""}${c.path}`);

/** The files a commit recorded, as `git show --name-status` lists them. */
const committedFiles = (commit: string) =>
  git(dir, "show", "--name-status", "--format=", "--no-renames", commit).trim().split("\n").sort();

describe("RunChanges across commits", () => {
  it("after a commit, counts only what changed since it, and never the operator's own changes", async () => {
    initRepo(dir, { "tracked.txt": "v1\n", "old-name.txt": "moved content\n" });
    // The operator's uncommitted work, there before the run (in place).
    writeFiles(dir, { "tracked.txt": "operator edit\n", "notes.txt": "operator's own\n" });
    const changes = new RunChanges({ root: dir, exclude: [], ownsTree: false });
    await changes.pending();

    writeFiles(dir, { "a.txt": "run 1\n" });
    renameSync(path.join(dir, "old-name.txt"), path.join(dir, "new-name.txt"));
    const first = await changes.commit("first");
    expect(names(first?.files ?? [])).toEqual(["added a.txt", "renamed old-name.txt -> new-name.txt"]);
    expect(committedFiles(first?.commit ?? "")).toEqual(["A\ta.txt", "A\tnew-name.txt", "D\told-name.txt"]);
    // Right after the commit nothing is the run's: the operator's files stay theirs.
    expect(await changes.pending()).toEqual([]);

    writeFiles(dir, { "a.txt": "run 2\n", "b.txt": "new\n" });
    rmSync(path.join(dir, "new-name.txt"));
    const second = await changes.commit("second");
    expect(names(second?.files ?? [])).toEqual(["modified a.txt", "added b.txt", "deleted new-name.txt"]);
    expect(committedFiles(second?.commit ?? "")).toEqual(["A\tb.txt", "D\tnew-name.txt", "M\ta.txt"]);
    expect(await changes.pending()).toEqual([]);
    expect(await changes.commit("nothing")).toBeNull();

    // The operator's changes are still uncommitted, as they were.
    expect(git(dir, "status", "--porcelain").trimEnd().split("\n").sort()).toEqual([
      " M tracked.txt",
      "?? notes.txt",
    ]);
    // What the commit left as the baseline is what a fresh look at the tree says.
    const fresh = await snapshotWorkingTree(dir);
    writeFiles(dir, { "c.txt": "third\n" });
    const third = await changes.commit("third");
    expect(names(third?.files ?? [])).toEqual(["added c.txt"]);
    expect(fresh.headCommit).toBe(second?.commit);
  });

  it("commits on the HEAD it finds, not the one its baseline saw, and leaves no private index behind", async () => {
    initRepo(dir, { "a.txt": "v1\n", "b.txt": "b1\n" });
    const indexes = () =>
      readdirSync(tmpdir()).filter((name) => name.startsWith(`sssf-index-${process.pid}-`));
    const before = indexes();
    const changes = new RunChanges({ root: dir, exclude: [], ownsTree: false });
    await changes.pending();
    // Someone commits after the run's baseline (an agent's own `git commit`): HEAD moves.
    writeFiles(dir, { "b.txt": "b2\n" });
    git(dir, "commit", "-q", "-am", "moved");
    const moved = git(dir, "rev-parse", "HEAD").trim();
    writeFiles(dir, { "c.txt": "c\n" });
    const made = await changes.commit("on top");
    expect(git(dir, "rev-parse", `${made?.commit}^`).trim()).toBe(moved);
    // The commit keeps what HEAD had (b2): it was not built on the tree the baseline saw.
    expect(git(dir, "show", `${made?.commit}:b.txt`)).toBe("b2\n");
    expect(git(dir, "show", `${made?.commit}:c.txt`)).toBe("c\n");
    expect(await changes.commit("nothing")).toBeNull();
    expect(indexes()).toEqual(before);
  });

  it("counts a file changed again right after it was committed", async () => {
    initRepo(dir, { "a.txt": "v1\n" });
    const changes = new RunChanges({ root: dir, exclude: [], ownsTree: true });
    writeFiles(dir, { "a.txt": "v2\n" });
    await changes.commit("v2");
    writeFileSync(path.join(dir, "a.txt"), "v1\n");
    expect(names(await changes.pending())).toEqual(["modified a.txt"]);
  });
});
