import { afterEach, describe, expect, it } from "vitest";
import { runGit, runGitBytes, runGitSync } from "../../src/code/run-git.js";
import { GitError } from "../../src/errors/git-error.js";
import { isSssfError } from "../../src/errors/sssf-error.js";
import { initRepo, makeTempDir, removeTempDir } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("runGit", () => {
  it("rejects a failing command with a GitError carrying the command, git's exit status and stderr", async () => {
    dir = makeTempDir("run-git");
    initRepo(dir);
    const error = await rejection(runGit(dir, ["rev-parse", "--verify", "no-such-ref"]));
    expect(error).toBeInstanceOf(GitError);
    const failure = error as GitError;
    expect(isSssfError(failure)).toBe(true);
    expect(failure.code).toBe("git_failed");
    expect(failure.exitCode).toBe(1);
    expect(failure.command).toEqual(["git", "rev-parse", "--verify", "no-such-ref"]);
    expect(failure.cwd).toBe(dir);
    expect(failure.gitExitCode).toBe(128);
    expect(failure.stderr).toContain("fatal: Needed a single revision");
    expect(failure.message).toBe(`git rev-parse failed in ${dir}: fatal: Needed a single revision`);
  });

  it("says git could not start with a null exit status when git is not on PATH", async () => {
    dir = makeTempDir("run-git");
    const error = await rejection(runGit(dir, ["status"], { env: { PATH: dir } }));
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).gitExitCode).toBeNull();
    expect((error as GitError).stderr).toBe("");
    expect((error as GitError).message).toContain("ENOENT");
  });

  it("words the message as the caller asks, from the failure and git's reason", async () => {
    dir = makeTempDir("run-git");
    const error = await rejection(
      runGit(dir, ["log"], {
        env: { GIT_CEILING_DIRECTORIES: dir },
        message: (failure, reason) => `${failure.command.join(" ")} (${failure.gitExitCode}): ${reason}`,
      }),
    );
    expect((error as GitError).message).toMatch(/^git log \(128\): fatal: not a git repository/);
  });

  it("feeds stdin and returns stdout, as text or as bytes", async () => {
    dir = makeTempDir("run-git");
    initRepo(dir);
    const oid = (await runGit(dir, ["hash-object", "-w", "--stdin"], { input: "hello\n" })).trim();
    expect(oid).toMatch(/^[0-9a-f]{40,64}$/);
    const bytes = await runGitBytes(dir, ["cat-file", "blob", oid]);
    expect(bytes.equals(Buffer.from("hello\n"))).toBe(true);
  });
});

describe("runGitSync", () => {
  it("throws the same GitError for a failing command", () => {
    dir = makeTempDir("run-git");
    initRepo(dir);
    let caught: unknown;
    try {
      runGitSync(dir, ["ls-tree", "-r", "no-such-commit"]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GitError);
    expect((caught as GitError).command).toEqual(["git", "ls-tree", "-r", "no-such-commit"]);
    expect((caught as GitError).gitExitCode).toBe(128);
    expect((caught as GitError).stderr).toContain("no-such-commit");
  });

  it("returns stdout when git succeeds", () => {
    dir = makeTempDir("run-git");
    initRepo(dir);
    expect(runGitSync(dir, ["rev-parse", "--is-inside-work-tree"]).trim()).toBe("true");
  });
});
