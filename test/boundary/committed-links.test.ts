import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { committedLinks } from "../../src/boundary/write-boundary-links.js";

const IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

let dir = "";
let savedPath: string | undefined;
const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: path.join(dir, "repo"), env: { ...process.env, ...IDENTITY } })
    .toString()
    .trim();
/** The `ls-tree` calls the git on PATH was asked for. */
const listings = () =>
  readFileSync(path.join(dir, "git.log"), "utf8")
    .split("\n")
    .filter((l) => l.startsWith("ls-tree")).length;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-links-"));
  const realGit = execFileSync("sh", ["-c", "command -v git"]).toString().trim();
  const bin = path.join(dir, "bin");
  execFileSync("mkdir", ["-p", bin, path.join(dir, "repo")]);
  // A git that logs its arguments, then runs the real one.
  writeFileSync(
    path.join(bin, "git"),
    `#!/bin/sh\necho "$*" >> '${path.join(dir, "git.log")}'\nexec '${realGit}' "$@"\n`,
  );
  chmodSync(path.join(bin, "git"), 0o755);
  writeFileSync(path.join(dir, "git.log"), "");
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(dir, "repo/a.txt"), "a\n");
  symlinkSync("../outside.txt", path.join(dir, "repo/out.txt"));
  git("add", "-A");
  git("commit", "-q", "-m", "one link");
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${savedPath ?? ""}`;
});
afterEach(() => {
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

describe("committedLinks", () => {
  it("lists a commit's symlinks once per root and commit, and a new commit's again", async () => {
    const root = path.join(dir, "repo");
    const first = git("rev-parse", "HEAD");
    // Two boundaries asking at once (parallel phases), then a later phase's: one listing.
    const [a, b] = await Promise.all([committedLinks(root, first), committedLinks(root, first)]);
    expect(await committedLinks(root, first)).toEqual(["out.txt"]);
    expect([a, b]).toEqual([["out.txt"], ["out.txt"]]);
    expect(listings()).toBe(1);
    // What a caller does with its copy is not what the next one gets.
    a.push("changed.txt");
    expect(await committedLinks(root, first)).toEqual(["out.txt"]);

    symlinkSync("../second.txt", path.join(root, "second.txt"));
    git("add", "-A");
    git("commit", "-q", "-m", "two links");
    expect(await committedLinks(root, git("rev-parse", "HEAD"))).toEqual(["out.txt", "second.txt"]);
    expect(listings()).toBe(2);
    // The first commit is still what it was.
    expect(await committedLinks(root, first)).toEqual(["out.txt"]);
    expect(listings()).toBe(2);
  });

  it("keeps no listing git could not make: asked again, git is asked again", async () => {
    const root = path.join(dir, "repo");
    const missing = "0".repeat(40);
    expect(await committedLinks(root, missing)).toEqual([]);
    expect(await committedLinks(root, missing)).toEqual([]);
    expect(listings()).toBe(2);
    expect(await committedLinks(root, null)).toEqual([]);
    expect(listings()).toBe(2);
  });
});
