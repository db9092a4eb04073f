import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { branchCommits, CARRY_SUBJECT, commitsBetween } from "../../src/workspace/worktree-dirty.js";
import { GIT_ENV } from "./worktree-world.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, ...GIT_ENV } }).trim();

function commit(subject: string, author?: string): string {
  writeFileSync(path.join(dir, `${subject.replaceAll(/\W/g, "-")}.txt`), subject);
  git("add", "-A");
  git("commit", "-q", "-m", subject, ...(author ? [`--author=${author} <${author}@example.test>`] : []));
  return git("rev-parse", "HEAD");
}

describe("a branch's commits beyond its base", () => {
  it("lists every commit oldest first with its subject, the carry commits apart from the run's own", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sssf-branch-commits-"));
    git("init", "-q", "-b", "main");
    const base = commit("base");
    git("switch", "-q", "-c", "sssf/build/abc12345");
    const carry = commit(CARRY_SUBJECT, "sssf");
    const first = commit("first: add the parser");
    const second = commit("second — fix a bug\u00e9");
    const commits = await branchCommits(dir, base, "sssf/build/abc12345");
    expect(commits?.log).toEqual([
      { sha: carry, subject: CARRY_SUBJECT },
      { sha: first, subject: "first: add the parser" },
      { sha: second, subject: "second — fix a bug\u00e9" },
    ]);
    expect(commits?.own).toEqual([second, first]);
    expect(commits?.carried).toEqual([carry]);
    expect(await branchCommits(dir, base, "sssf/build/gone")).toBeNull();
    expect(await commitsBetween(dir, base, base)).toEqual({ own: [], carried: [], log: [] });
  });
});
