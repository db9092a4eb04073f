import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deleteLooseRef } from "../../src/code/loose-ref-delete.js";
import { git, initRepo, makeTempDir, removeTempDir } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

const BRANCH = "refs/heads/sssf/prompt/0a1b2c3d";

/** A repo with one commit and the run branch `BRANCH` at it, made the way `git worktree add -b` makes it. */
function repo(): { facts: { commonDir: string; hooksDir: string }; head: string } {
  dir = makeTempDir("loose-ref");
  initRepo(dir, { "a.txt": "a\n" });
  git(dir, "branch", "sssf/prompt/0a1b2c3d");
  git(dir, "branch", "sssf/prompt/ffffffff");
  const commonDir = path.join(dir, ".git");
  return {
    facts: { commonDir, hooksDir: path.join(commonDir, "hooks") },
    head: git(dir, "rev-parse", "HEAD").trim(),
  };
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

describe("deleting a run's loose branch without git", () => {
  it("removes the ref, its reflog and the folders they leave empty, as update-ref -d does", () => {
    const { facts, head } = repo();
    expect(deleteLooseRef(facts, BRANCH, head)).toBe(true);
    expect(exists(BRANCH)).toBe(false);
    expect(exists("refs/heads/sssf/prompt/ffffffff")).toBe(true);
    expect(existsSync(path.join(facts.commonDir, "logs/refs/heads/sssf/prompt/0a1b2c3d"))).toBe(false);
    expect(existsSync(path.join(facts.commonDir, "refs/heads/sssf/prompt/0a1b2c3d.lock"))).toBe(false);
    git(dir, "fsck", "--strict", "--no-progress");
    // The last branch of a folder takes the folders with it.
    expect(deleteLooseRef(facts, "refs/heads/sssf/prompt/ffffffff", head)).toBe(true);
    expect(existsSync(path.join(facts.commonDir, "refs/heads/sssf"))).toBe(false);
    expect(existsSync(path.join(facts.commonDir, "logs/refs/heads/sssf"))).toBe(false);
    expect(existsSync(path.join(facts.commonDir, "refs/heads"))).toBe(true);
    // The name can be used again.
    git(dir, "branch", "sssf/prompt/0a1b2c3d");
    expect(exists(BRANCH)).toBe(true);
  });

  it("leaves to git a ref at another commit, and one whose lock a git holds", () => {
    const { facts, head } = repo();
    git(dir, "commit", "-q", "--allow-empty", "-m", "second");
    const second = git(dir, "rev-parse", "HEAD").trim();
    expect(deleteLooseRef(facts, BRANCH, second)).toBe(false);
    expect(exists(BRANCH)).toBe(true);

    writeFileSync(path.join(facts.commonDir, "refs/heads/sssf/prompt/0a1b2c3d.lock"), "");
    expect(deleteLooseRef(facts, BRANCH, head)).toBe(false);
    expect(exists(BRANCH)).toBe(true);
    // Nothing of the lock's holder was taken: its lock is still there.
    expect(existsSync(path.join(facts.commonDir, "refs/heads/sssf/prompt/0a1b2c3d.lock"))).toBe(true);
  });

  it("leaves to git a packed ref, a reference-transaction hook, and a reftable repository", () => {
    const { facts, head } = repo();
    git(dir, "pack-refs", "--all");
    expect(deleteLooseRef(facts, BRANCH, head)).toBe(false);
    expect(exists(BRANCH)).toBe(true);

    const other = "refs/heads/sssf/prompt/ffffffff";
    // Loose again, over its packed line (git reads the loose one first).
    mkdirSync(path.join(facts.commonDir, "refs/heads/sssf/prompt"), { recursive: true });
    writeFileSync(path.join(facts.commonDir, "refs/heads/sssf/prompt/ffffffff"), `${head}\n`);
    mkdirSync(facts.hooksDir, { recursive: true });
    const hook = path.join(facts.hooksDir, "reference-transaction");
    writeFileSync(hook, "#!/bin/sh\nexit 0\n");
    chmodSync(hook, 0o755);
    expect(deleteLooseRef(facts, other, head)).toBe(false);
    expect(exists(other)).toBe(true);
    // Without the hook: loose, yet still listed in packed-refs, which only git rewrites.
    removeTempDir(hook);
    expect(deleteLooseRef(facts, other, head)).toBe(false);
    expect(existsSync(path.join(facts.commonDir, "refs/heads/sssf/prompt/ffffffff"))).toBe(true);

    removeTempDir(dir);
    const fresh = repo();
    appendFileSync(path.join(fresh.facts.commonDir, "config"), "[extensions]\n\trefStorage = reftable\n");
    expect(deleteLooseRef(fresh.facts, BRANCH, fresh.head)).toBe(false);
  });

  it("never takes a name that would lead outside refs/heads", () => {
    const { facts, head } = repo();
    for (const ref of [
      "refs/heads/../../HEAD",
      "refs/heads/sssf/../../config",
      "refs/heads/.hidden",
      "refs/heads/a/.b",
      "refs/heads/x.lock",
      "refs/tags/v1",
      "HEAD",
      "refs/heads/",
    ]) {
      expect(deleteLooseRef(facts, ref, head), ref).toBe(false);
    }
    expect(deleteLooseRef(facts, BRANCH, "not-an-oid")).toBe(false);
    expect(existsSync(path.join(facts.commonDir, "HEAD"))).toBe(true);
    expect(existsSync(path.join(facts.commonDir, "config"))).toBe(true);
  });
});
