import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitError } from "../../src/errors/git-error.js";
import { deleteBranchAt } from "../../src/workspace/worktree-dirty.js";
import { git, initRepo, makeTempDir, removeTempDir } from "../code/fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

const NAME = "sssf/prompt/0a1b2c3d";
const BRANCH = `refs/heads/${NAME}`;

/** A repo with one commit and the run branches at it, made the way `git worktree add -b` makes them. */
function repo(): { commonDir: string; head: string } {
  dir = makeTempDir("delete-branch");
  initRepo(dir, { "a.txt": "a\n" });
  git(dir, "branch", NAME);
  git(dir, "branch", "sssf/prompt/ffffffff");
  return { commonDir: path.join(dir, ".git"), head: git(dir, "rev-parse", "HEAD").trim() };
}

/** Whether git still knows `ref` (loose or packed). */
function exists(ref: string): boolean {
  try {
    execFileSync("git", ["show-ref", "--verify", "--quiet", ref], { cwd: dir });
    return true;
  } catch {
    return false;
  }
}

/** The GitError `promise` rejects with (it must reject with one). */
async function refused(promise: Promise<unknown>): Promise<GitError> {
  const error = await promise.then(
    () => new Error("expected a rejection"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GitError);
  return error as GitError;
}

describe("deleteBranchAt: a run's branch without commits", () => {
  it("removes the ref, its reflog and the folders they leave empty", async () => {
    const { commonDir, head } = repo();
    await deleteBranchAt(dir, NAME, head);
    expect(exists(BRANCH)).toBe(false);
    expect(exists("refs/heads/sssf/prompt/ffffffff")).toBe(true);
    expect(existsSync(path.join(commonDir, "logs/refs/heads/sssf/prompt/0a1b2c3d"))).toBe(false);
    expect(existsSync(path.join(commonDir, "refs/heads/sssf/prompt/0a1b2c3d.lock"))).toBe(false);
    git(dir, "fsck", "--strict", "--no-progress");
    // The last branch of a folder takes the folders with it.
    await deleteBranchAt(dir, "sssf/prompt/ffffffff", head);
    expect(existsSync(path.join(commonDir, "refs/heads/sssf"))).toBe(false);
    expect(existsSync(path.join(commonDir, "logs/refs/heads/sssf"))).toBe(false);
    expect(existsSync(path.join(commonDir, "refs/heads"))).toBe(true);
    // The name can be used again.
    git(dir, "branch", NAME);
    expect(exists(BRANCH)).toBe(true);
  });

  it("keeps a ref at another commit, and one whose lock a git holds", async () => {
    const { commonDir, head } = repo();
    git(dir, "commit", "-q", "--allow-empty", "-m", "second");
    const second = git(dir, "rev-parse", "HEAD").trim();
    await refused(deleteBranchAt(dir, NAME, second));
    expect(exists(BRANCH)).toBe(true);

    const lock = path.join(commonDir, "refs/heads/sssf/prompt/0a1b2c3d.lock");
    writeFileSync(lock, "");
    await refused(deleteBranchAt(dir, NAME, head));
    expect(exists(BRANCH)).toBe(true);
    // Nothing of the lock's holder was taken: its lock is still there.
    expect(existsSync(lock)).toBe(true);
  });

  it("deletes a packed ref, and runs no reference-transaction hook", async () => {
    const { commonDir, head } = repo();
    git(dir, "pack-refs", "--all");
    const hooks = path.join(commonDir, "hooks");
    mkdirSync(hooks, { recursive: true });
    const hook = path.join(hooks, "reference-transaction");
    writeFileSync(hook, `#!/bin/sh\ntouch "${path.join(dir, "hook-ran")}"\n`);
    chmodSync(hook, 0o755);
    await deleteBranchAt(dir, NAME, head);
    expect(exists(BRANCH)).toBe(false);
    expect(exists("refs/heads/sssf/prompt/ffffffff")).toBe(true);
    expect(existsSync(path.join(dir, "hook-ran"))).toBe(false);
  });

  it("never takes a name that would lead outside refs/heads", async () => {
    const { commonDir, head } = repo();
    for (const name of ["../../HEAD", "sssf/../../config", ".hidden", "a/.b", "x.lock", ""]) {
      await refused(deleteBranchAt(dir, name, head));
    }
    await refused(deleteBranchAt(dir, NAME, "not-an-oid"));
    expect(exists(BRANCH)).toBe(true);
    expect(existsSync(path.join(commonDir, "HEAD"))).toBe(true);
    expect(existsSync(path.join(commonDir, "config"))).toBe(true);
  });
});
