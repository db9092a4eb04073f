import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { runGit, runGitBytes } from "../../src/code/run-git.js";
import { GitError } from "../../src/errors/git-error.js";
import { initRepo, makeTempDir, removeTempDir } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

/** `git args` started by this test, as Node starts it. */
function direct(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env, input = "") {
  const result = spawnSync("git", args, { cwd, env: { ...env, GIT_OPTIONAL_LOCKS: "0" }, input });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The GitError `promise` rejects with (it must reject with one). */
async function gitFailure(promise: Promise<unknown>): Promise<GitError> {
  const error = await promise.then(
    () => new Error("expected a rejection"),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GitError);
  return error as GitError;
}

describe("git started by runGit, as any program", () => {
  it("passes every argument as one word, whatever it holds: the same as git started directly", async () => {
    dir = makeTempDir("run-git-process");
    initRepo(dir);
    // No NUL (an argument cannot hold one): quotes, spaces, newlines, $(…), backticks, globs, unicode.
    const word = fc.string({ unit: "binary", maxLength: 40 }).filter((text) => !text.includes("\0"));
    await fc.assert(
      fc.asyncProperty(fc.array(word, { minLength: 1, maxLength: 6 }), async (words) => {
        const args = ["rev-parse", "--sq-quote", ...words];
        const got = await runGitBytes(dir, args);
        const want = direct(dir, args);
        expect(want.code).toBe(0);
        expect(got.equals(want.stdout)).toBe(true);
      }),
      { seed: 20261206, numRuns: 150 },
    );
  });

  it("gives stdin, exact bytes, exit status and stderr as git started directly does", async () => {
    dir = makeTempDir("run-git-process");
    initRepo(dir);
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0x80, 0x00]);
    writeFileSync(path.join(dir, "bin.dat"), bytes);
    const oid = (await runGit(dir, ["hash-object", "-w", "bin.dat"])).trim();
    expect((await runGitBytes(dir, ["cat-file", "blob", oid])).equals(bytes)).toBe(true);
    expect((await runGit(dir, ["hash-object", "--stdin"], { input: "it's $(here)\n" })).trim()).toBe(
      direct(dir, ["hash-object", "--stdin"], process.env, "it's $(here)\n").stdout.toString().trim(),
    );
    const failed = await gitFailure(runGit(dir, ["rev-parse", "--verify", "nope"]));
    const want = direct(dir, ["rev-parse", "--verify", "nope"]);
    expect(failed.gitExitCode).toBe(want.code);
    expect(failed.stderr).toBe(want.stderr.toString());
    // Output far over a pipe's buffer.
    const big = "x".repeat(3 * 1024 * 1024);
    writeFileSync(path.join(dir, "big.txt"), big);
    const bigOid = (await runGit(dir, ["hash-object", "-w", "big.txt"])).trim();
    expect(await runGit(dir, ["cat-file", "blob", bigOid])).toBe(big);
    await expect(runGit(dir, ["cat-file", "blob", bigOid], { maxBuffer: 1024 })).rejects.toThrow(/maxBuffer/);
  });

  it("sets and removes environment variables per command, as the caller's env says", async () => {
    dir = makeTempDir("run-git-process");
    initRepo(dir);
    const ident = (env: NodeJS.ProcessEnv) => runGit(dir, ["var", "GIT_AUTHOR_IDENT"], { env });
    expect(await ident({ GIT_AUTHOR_NAME: "O'Brien $(x)", GIT_AUTHOR_EMAIL: "o@b.test" })).toMatch(
      /^O'Brien \$\(x\) <o@b\.test> /,
    );
    // A variable the process has and the command removes.
    process.env.SSSF_TEST_RUN_GIT_VAR = "set";
    try {
      const shown = await runGit(dir, ["-c", "alias.e=!env", "e"], {
        env: { SSSF_TEST_RUN_GIT_VAR: undefined },
      });
      expect(shown).toContain("GIT_OPTIONAL_LOCKS=0");
      expect(shown).not.toContain("SSSF_TEST_RUN_GIT_VAR");
    } finally {
      delete process.env.SSSF_TEST_RUN_GIT_VAR;
    }
    // A name no shell could hold is passed as it is.
    expect(await runGit(dir, ["-c", "alias.e=!env", "e"], { env: { "odd-name": "1" } })).toContain(
      "odd-name=1",
    );
  });

  it("answers many commands at once, each with its own output", async () => {
    dir = makeTempDir("run-git-process");
    initRepo(dir);
    const texts = Array.from({ length: 40 }, (_, i) => `text ${i}\n`);
    const oids = await Promise.all(
      texts.map((text) => runGit(dir, ["hash-object", "--stdin"], { input: text })),
    );
    const want = texts.map((text) =>
      execFileSync("git", ["hash-object", "--stdin"], { cwd: dir, input: text }).toString(),
    );
    expect(oids).toEqual(want);
  });

  it("fails a command whose folder is missing, or whose git is not on PATH, with a GitError", async () => {
    dir = makeTempDir("run-git-process");
    const missing = await gitFailure(runGit(path.join(dir, "gone"), ["status"]));
    expect(missing.message).toContain(`git status failed in ${path.join(dir, "gone")}`);
    const noGit = await gitFailure(runGit(dir, ["status"], { env: { PATH: dir } }));
    expect(noGit.gitExitCode).toBeNull();
    expect(noGit.message).toContain("ENOENT");
    // 127 from git's own alias is git's status, not "git not found".
    initRepo(dir);
    const own = await gitFailure(runGit(dir, ["-c", "alias.nf=!exit 127", "nf"]));
    expect(own.gitExitCode).toBe(127);
  });
});
