import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitError } from "../../src/errors/git-error.js";
import {
  addWorktree,
  type GitRepo,
  inspectCheckout,
  listWorktrees,
  removeWorktree,
} from "../../src/workspace/worktree.js";
import { git } from "./worktree-world.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A repository with one commit and a worktree of it on a new branch, with a file of its own. */
async function withWorktree(): Promise<{ repo: GitRepo; top: string; worktree: string; base: string }> {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-remove-"));
  const top = path.join(dir, "repo");
  mkdirSync(top);
  git(top, ["init", "-q", "-b", "main"]);
  writeFileSync(path.join(top, "a.txt"), "a\n");
  git(top, ["add", "a.txt"]);
  git(top, ["commit", "-q", "-m", "initial"]);
  const info = await inspectCheckout(top);
  if (info === null || info.head === null) throw new Error("not a checkout");
  const worktree = path.join(info.topLevel, ".worktrees/abc12345");
  await addWorktree(info, worktree, "sssf/abc12345", info.head);
  writeFileSync(path.join(worktree, "untracked.txt"), "lost with --force\n");
  return { repo: info, top: info.topLevel, worktree, base: info.head };
}

describe("removeWorktree", () => {
  it("removes a forced worktree and git's record of it", async () => {
    const { repo, top, worktree, base } = await withWorktree();
    const record = git(worktree, ["rev-parse", "--absolute-git-dir"]).trim();
    expect(existsSync(record)).toBe(true);
    await removeWorktree(repo, worktree, true);
    expect(existsSync(worktree)).toBe(false);
    expect(existsSync(record)).toBe(false);
    // git sees no worktree and nothing to prune; the branch stays, and the path can be used again.
    expect((await listWorktrees(repo)).map((entry) => entry.path)).toEqual([top]);
    expect(git(top, ["worktree", "prune", "--dry-run", "--verbose"])).toBe("");
    expect(git(top, ["rev-parse", "refs/heads/sssf/abc12345"]).trim()).toBe(base);
    git(top, ["worktree", "add", "-q", worktree, "sssf/abc12345"]);
    git(top, ["fsck", "--no-dangling"]);
  });

  it("follows a worktree reached through a symlinked folder", async () => {
    const { repo, worktree } = await withWorktree();
    const alias = path.join(dir as string, "alias");
    symlinkSync(path.dirname(worktree), alias);
    const through = path.join(alias, path.basename(worktree));
    await removeWorktree(repo, through, true);
    expect(existsSync(worktree)).toBe(false);
  });

  it("refuses a locked worktree", async () => {
    const { repo, top, worktree } = await withWorktree();
    git(top, ["worktree", "lock", "--reason", "kept by hand", worktree]);
    const error = await removeWorktree(repo, worktree, true).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).stderr).toMatch(/locked/);
    expect(existsSync(path.join(worktree, "untracked.txt"))).toBe(true);
  });

  it("refuses a folder whose .git names another repository's record", async () => {
    const { repo, worktree } = await withWorktree();
    const other = path.join(dir as string, "other");
    mkdirSync(other);
    git(other, ["init", "-q", "-b", "main"]);
    git(other, ["commit", "-q", "--allow-empty", "-m", "other"]);
    const stranger = path.join(dir as string, "stranger");
    git(other, ["worktree", "add", "-q", "--detach", stranger]);
    const error = await removeWorktree(repo, stranger, true).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect(existsSync(path.join(stranger, ".git"))).toBe(true);
    expect(existsSync(worktree)).toBe(true);
  });

  it("without force keeps a worktree with changes", async () => {
    const { repo, worktree } = await withWorktree();
    const error = await removeWorktree(repo, worktree, false).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect(existsSync(path.join(worktree, "untracked.txt"))).toBe(true);
  });
});
