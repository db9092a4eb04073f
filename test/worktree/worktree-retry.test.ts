import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitError } from "../../src/errors/git-error.js";
import {
  addWorktree,
  type GitRepo,
  inspectCheckout,
  listWorktrees,
  pruneWorktrees,
  removeWorktree,
} from "../../src/workspace/worktree.js";
import { isTransientWorktreeFailure, retryTransient } from "../../src/workspace/worktree-git.js";
import { WORKTREE_LOCK_NAME } from "../../src/workspace/worktree-lock.js";
import { git } from "./worktree-world.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A repository with one commit, seen as the worktree steps see it. */
async function repository(): Promise<{ repo: GitRepo; base: string; top: string }> {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-retry-"));
  const top = path.join(dir, "repo");
  mkdirSync(top);
  git(top, ["init", "-q", "-b", "main"]);
  git(top, ["commit", "-q", "--allow-empty", "-m", "initial"]);
  const info = await inspectCheckout(top);
  if (info === null) throw new Error("not a checkout");
  expect(info.commonDir).toBe(path.join(info.topLevel, ".git"));
  return { repo: info, base: info.head ?? "", top: info.topLevel };
}

/**
 * What another git process leaves for an instant while it adds a worktree: a record whose `commondir`
 * is still empty. Git commands that read every record die on it. Returns the repair.
 */
function halfWrittenRecord(top: string): () => void {
  const record = path.join(top, ".git/worktrees/other");
  mkdirSync(record, { recursive: true });
  writeFileSync(path.join(record, "commondir"), "");
  writeFileSync(path.join(record, "gitdir"), `${path.join(path.dirname(top), "other")}/.git\n`);
  writeFileSync(path.join(record, "HEAD"), "ref: refs/heads/other\n");
  return () => rmSync(record, { recursive: true, force: true });
}

describe("transient worktree failures", () => {
  it("are recognised by git's own message, and nothing else is", async () => {
    const { repo, top } = await repository();
    const other = await removeWorktree(repo, path.join(top, "nowhere"), false).catch(
      (caught: unknown) => caught,
    );
    expect(other).toBeInstanceOf(GitError);
    expect(isTransientWorktreeFailure(other)).toBe(false);
    halfWrittenRecord(top);
    const error = await listWorktrees(repo, { attempts: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).stderr).toMatch(/failed to read \.git\/worktrees\/other\/commondir/);
    expect(isTransientWorktreeFailure(error)).toBe(true);
    expect(isTransientWorktreeFailure(new Error("failed to read .git/worktrees/x/commondir"))).toBe(false);
  });

  it("are retried a bounded number of times; other failures are not", async () => {
    const { repo, top } = await repository();
    halfWrittenRecord(top);
    const retries: number[] = [];
    const persistent = await listWorktrees(repo, {
      attempts: 3,
      delayMs: 1,
      onRetry: (_error, attempt) => {
        retries.push(attempt);
      },
    }).catch((caught: unknown) => caught);
    expect(isTransientWorktreeFailure(persistent)).toBe(true);
    expect(retries).toEqual([1, 2]);

    let calls = 0;
    await expect(
      retryTransient(async () => {
        calls++;
        throw new Error("not git's");
      }),
    ).rejects.toThrow("not git's");
    expect(calls).toBe(1);
  });

  it("a worktree list succeeds once the other process has finished its record", async () => {
    const { repo, top } = await repository();
    const repair = halfWrittenRecord(top);
    const retries: number[] = [];
    const entries = await listWorktrees(repo, {
      onRetry: (_error, attempt) => {
        retries.push(attempt);
        repair();
      },
    });
    expect(retries).toEqual([1]);
    expect(entries.map((entry) => entry.path)).toEqual([top]);
  });

  it("a worktree add is retried on the branch its failed try already created", async () => {
    const { repo, base, top } = await repository();
    const repair = halfWrittenRecord(top);
    const worktree = path.join(top, "adws/adw_data/.worktrees/abc12345");
    const branchesAtRetry: string[] = [];
    await addWorktree(repo, worktree, "sssf/abc12345", base, {
      onRetry: () => {
        branchesAtRetry.push(git(top, ["branch", "--list", "sssf/*", "--format=%(refname:short)"]).trim());
        repair();
      },
    });
    // Git created the branch before it died on the other record; the retry checked it out.
    expect(branchesAtRetry).toEqual(["sssf/abc12345"]);
    expect(git(worktree, ["rev-parse", "HEAD"]).trim()).toBe(base);
    expect(git(worktree, ["symbolic-ref", "HEAD"]).trim()).toBe("refs/heads/sssf/abc12345");
    const listed = await listWorktrees(repo);
    expect(listed.map((entry) => [entry.path, entry.branch])).toEqual([
      [top, "main"],
      [worktree, "sssf/abc12345"],
    ]);
    await removeWorktree(repo, worktree, false);
    await pruneWorktrees(repo);
    expect(existsSync(worktree)).toBe(false);
    expect(existsSync(path.join(top, ".git", WORKTREE_LOCK_NAME))).toBe(false);
  });
});
