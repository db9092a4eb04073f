import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type Launched, launcherFolder, launchGit, sweepStaleFolders } from "../../src/code/git-launcher.js";
import { runGit, runGitBytes } from "../../src/code/run-git.js";
import { GitError } from "../../src/errors/git-error.js";
import { initRepo, makeTempDir, removeTempDir } from "./fixtures.js";

let dir = "";
afterEach(() => removeTempDir(dir));

const MAX = 512 * 1024 * 1024;

/** `git args` through the launcher shell (which must take it). */
function launched(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  input = "",
): Promise<Launched> {
  const started = launchGit({ cwd, args, env: { ...env, GIT_OPTIONAL_LOCKS: "0" }, input, maxBuffer: MAX });
  if (started === null) throw new Error("the launcher did not take the command");
  return started;
}

/** `git args` started by this process, as Node starts it. */
function direct(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env, input = "") {
  const result = spawnSync("git", args, { cwd, env: { ...env, GIT_OPTIONAL_LOCKS: "0" }, input });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** What is left in the launcher's private folder: nothing once every command was answered. */
function leftOutputs(): string[] {
  const folder = launcherFolder();
  return folder === null ? [] : readdirSync(folder);
}

describe.runIf(process.platform !== "win32")("git started by the launcher shell", () => {
  it("passes every argument as one word, whatever it holds: the same as git started directly", async () => {
    dir = makeTempDir("git-launcher");
    initRepo(dir);
    // No NUL (an argument cannot hold one): quotes, spaces, newlines, $(…), backticks, globs, unicode.
    const word = fc.string({ unit: "binary", maxLength: 40 }).filter((text) => !text.includes("\0"));
    await fc.assert(
      fc.asyncProperty(fc.array(word, { minLength: 1, maxLength: 6 }), async (words) => {
        const args = ["rev-parse", "--sq-quote", ...words];
        const got = await launched(dir, args);
        const want = direct(dir, args);
        expect(got.code).toBe(want.code);
        expect(got.stdout.equals(want.stdout)).toBe(true);
      }),
      { seed: 20261206, numRuns: 150 },
    );
  });

  it("gives stdin, exact bytes, exit status and stderr as git started directly does", async () => {
    dir = makeTempDir("git-launcher");
    initRepo(dir);
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0x80, 0x00]);
    writeFileSync(path.join(dir, "bin.dat"), bytes);
    const oid = (await runGit(dir, ["hash-object", "-w", "bin.dat"])).trim();
    expect((await runGitBytes(dir, ["cat-file", "blob", oid])).equals(bytes)).toBe(true);
    expect((await runGit(dir, ["hash-object", "--stdin"], { input: "it's $(here)\n" })).trim()).toBe(
      direct(dir, ["hash-object", "--stdin"], process.env, "it's $(here)\n").stdout.toString().trim(),
    );
    const failed = await launched(dir, ["rev-parse", "--verify", "nope"]);
    const want = direct(dir, ["rev-parse", "--verify", "nope"]);
    expect(failed.code).toBe(want.code);
    expect(failed.stderr.toString()).toBe(want.stderr.toString());
    // Output far over a pipe's buffer.
    const big = "x".repeat(3 * 1024 * 1024);
    writeFileSync(path.join(dir, "big.txt"), big);
    const bigOid = (await runGit(dir, ["hash-object", "-w", "big.txt"])).trim();
    expect(await runGit(dir, ["cat-file", "blob", bigOid])).toBe(big);
    await expect(runGit(dir, ["cat-file", "blob", bigOid], { maxBuffer: 1024 })).rejects.toThrow(/maxBuffer/);
    expect(leftOutputs()).toEqual([]);
  });

  it("sets and removes environment variables per command, as the caller's env says", async () => {
    dir = makeTempDir("git-launcher");
    initRepo(dir);
    const ident = (env: NodeJS.ProcessEnv) => runGit(dir, ["var", "GIT_AUTHOR_IDENT"], { env });
    expect(await ident({ GIT_AUTHOR_NAME: "O'Brien $(x)", GIT_AUTHOR_EMAIL: "o@b.test" })).toMatch(
      /^O'Brien \$\(x\) <o@b\.test> /,
    );
    // A variable the process has and the command removes.
    process.env.SSSF_TEST_LAUNCHER_VAR = "set";
    try {
      const env = { ...process.env, SSSF_TEST_LAUNCHER_VAR: undefined, GIT_OPTIONAL_LOCKS: "0" };
      const shown = await launched(dir, ["-c", "alias.e=!env", "e"], env);
      expect(shown.stdout.toString()).not.toContain("SSSF_TEST_LAUNCHER_VAR");
    } finally {
      delete process.env.SSSF_TEST_LAUNCHER_VAR;
    }
    // A name no shell can hold is not the launcher's: git is started directly.
    const odd = { ...process.env, "odd-name": "1" };
    expect(launchGit({ cwd: dir, args: ["version"], env: odd, input: "", maxBuffer: MAX })).toBeNull();
    expect(await runGit(dir, ["var", "GIT_AUTHOR_IDENT"], { env: { "odd-name": "1" } })).toContain("<");
  });

  it("answers many commands at once, each with its own output", async () => {
    dir = makeTempDir("git-launcher");
    initRepo(dir);
    const texts = Array.from({ length: 40 }, (_, i) => `text ${i}\n`);
    const oids = await Promise.all(
      texts.map((text) => runGit(dir, ["hash-object", "--stdin"], { input: text })),
    );
    const want = texts.map((text) =>
      execFileSync("git", ["hash-object", "--stdin"], { cwd: dir, input: text }).toString(),
    );
    expect(oids).toEqual(want);
    expect(leftOutputs()).toEqual([]);
  });

  it("fails a command whose folder is missing, or whose git is not on PATH, with a GitError", async () => {
    dir = makeTempDir("git-launcher");
    const missing = await runGit(path.join(dir, "gone"), ["status"]).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(GitError);
    expect((missing as GitError).message).toContain(`git status failed in ${path.join(dir, "gone")}`);
    const noGit = await runGit(dir, ["status"], { env: { PATH: dir } }).catch((error: unknown) => error);
    expect(noGit).toBeInstanceOf(GitError);
    expect((noGit as GitError).gitExitCode).toBeNull();
    expect((noGit as GitError).message).toContain("ENOENT");
    // 127 from git's own alias is git's status, not "git not found".
    initRepo(dir);
    const own = await runGit(dir, ["-c", "alias.nf=!exit 127", "nf"]).catch((error: unknown) => error);
    expect((own as GitError).gitExitCode).toBe(127);
  });

  it("removes a killed sssf's leftover folder, and only that", async () => {
    dir = makeTempDir("git-launcher");
    // A pid no process has: spawn one and let it end.
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid as number;
    const hourAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    const make = (name: string, old: boolean) => {
      mkdirSync(path.join(dir, name));
      writeFileSync(path.join(dir, name, "1.out"), "left\n");
      if (old) utimesSync(path.join(dir, name), hourAgo, hourAgo);
    };
    make(`sssf-git-${gone}-stale1`, true);
    make(`sssf-git-${gone}-recent`, false); // maybe another PID namespace's, still at work
    make(`sssf-git-${process.pid}-mine`, true);
    make(`sssf-git-${process.ppid}-alive`, true);
    make("sssf-git-notapid", true);
    make("unrelated", true);
    sweepStaleFolders(dir);
    expect(readdirSync(dir).sort()).toEqual(
      [
        `sssf-git-${gone}-recent`,
        `sssf-git-${process.pid}-mine`,
        `sssf-git-${process.ppid}-alive`,
        "sssf-git-notapid",
        "unrelated",
      ].sort(),
    );
    sweepStaleFolders(path.join(dir, "missing"));
    expect(existsSync(dir)).toBe(true);
  });
});
