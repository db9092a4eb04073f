/**
 * A commit's files, counted right: from the engine's recorded changes (objects, the cause of "0 files"),
 * and from `git diff-tree --numstat -z` on real commits: a root commit, a rename, a binary file, names
 * with spaces, a newline and non-ASCII letters, and a merge commit (against its first parent).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGit } from "../../src/code/run-git.js";
import { numstatArgs, numstatFiles, recordedFiles } from "../../src/ui/server/review/commit-files.js";
import { git } from "./feature-fixtures.js";

let repo: string;
beforeAll(() => {
  repo = mkdtempSync(path.join(os.tmpdir(), "sssf-numstat-"));
  git(repo, "init", "-q", "-b", "main");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const filesOf = async (sha: string) => numstatFiles(await runGit(repo, numstatArgs(sha)));

function commit(message: string): string {
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", message);
  return git(repo, "rev-parse", "HEAD");
}

describe("numstatFiles over real git output", () => {
  it("counts a root commit, a rename, a binary file, odd names and a merge", async () => {
    writeFileSync(path.join(repo, "a b.txt"), "one\ntwo\nthree\nfour\n");
    writeFileSync(
      path.join(repo, "old.ts"),
      "export const x = 1;\nexport const y = 2;\nexport const z = 3;\n",
    );
    const root = commit("root");
    expect(await filesOf(root)).toEqual(["a b.txt", "old.ts"]);

    git(repo, "mv", "old.ts", "new name.ts");
    writeFileSync(path.join(repo, "logo.bin"), Buffer.from([0, 1, 2, 255, 0, 9, 0]));
    writeFileSync(path.join(repo, "line\nbreak.txt"), "x\n");
    writeFileSync(path.join(repo, "ünï cødé.md"), "é\n");
    const odd = commit("rename, binary, odd names");
    expect((await filesOf(odd)).sort()).toEqual(
      ["line\nbreak.txt", "logo.bin", "old.ts → new name.ts", "ünï cødé.md"].sort(),
    );

    // One file on a side branch, one on main, then a merge commit: against its first parent, one file.
    git(repo, "checkout", "-q", "-b", "side");
    writeFileSync(path.join(repo, "side.txt"), "side\n");
    commit("side");
    git(repo, "checkout", "-q", "main");
    writeFileSync(path.join(repo, "main.txt"), "main\n");
    commit("main");
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side");
    const merge = git(repo, "rev-parse", "HEAD");
    expect(await filesOf(merge)).toEqual(["side.txt"]);

    // A one-file commit is one file.
    writeFileSync(path.join(repo, "a b.txt"), "changed\n");
    expect(await filesOf(commit("one file"))).toEqual(["a b.txt"]);
  });
});

describe("recordedFiles", () => {
  it("reads the engine's change objects, a rename as old → new, and plain paths", () => {
    expect(recordedFiles([{ path: "src/app.js", change: "modified" }])).toEqual(["src/app.js"]);
    expect(
      recordedFiles([
        { path: "b.ts", change: "renamed", previousPath: "a.ts" },
        { path: "c.ts", change: "added" },
      ]),
    ).toEqual(["a.ts → b.ts", "c.ts"]);
    expect(recordedFiles(["x.ts", "y z.ts"])).toEqual(["x.ts", "y z.ts"]);
    expect(recordedFiles([])).toEqual([]);
    // Nothing recorded, or nothing readable: ask git.
    expect(recordedFiles(undefined)).toBeNull();
    expect(recordedFiles([{ nope: 1 }])).toBeNull();
  });
});
