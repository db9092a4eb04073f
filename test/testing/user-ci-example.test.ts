/**
 * docs/testing.md's "Test your own workflow in CI" example, run as written: the blocks marked
 * `<!-- user-ci-example: … -->` are copied into a scratch repository set up by `sssf init`, with sssf
 * installed as the built package (dist/: `npm run build` first), then the shell command runs and the
 * vitest file runs under vitest, both with the real pi against the fake model.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, collect, repoRoot } from "../helpers/sandbox.js";

/** Each marked block of the page: a file path (or `command`) and the fenced text after the marker. */
function exampleBlocks(): Map<string, string> {
  const page = readFileSync(path.join(repoRoot, "docs/testing.md"), "utf8");
  const blocks = new Map<string, string>();
  for (const match of page.matchAll(/<!-- user-ci-example: (\S+) -->\n\n```\w*\n([\s\S]*?)\n```/g)) {
    blocks.set(match[1] ?? "", `${match[2] ?? ""}\n`);
  }
  return blocks;
}

let repo = "";
let env: NodeJS.ProcessEnv = {};
const blocks = exampleBlocks();

beforeAll(async () => {
  repo = mkdtempSync(path.join(tmpdir(), "sssf-user-ci-"));
  const gitConfig = path.join(repo, "..", `${path.basename(repo)}.gitconfig`);
  writeFileSync(gitConfig, "[user]\n\tname = CI\n\temail = ci@example.com\n[init]\n\tdefaultBranch = main\n");
  const bin = path.join(repo, "node_modules/.bin");
  // A user's shell: none of the npm_config_* variables `npm test` (or CI) set around this test.
  const userEnv = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_config_")),
  );
  env = {
    ...userEnv,
    NO_COLOR: "1",
    GIT_CONFIG_GLOBAL: gitConfig,
    GIT_CONFIG_NOSYSTEM: "1",
    // The user's devDependencies: sssf's bin, and pi (from sssf's own node_modules).
    PATH: [bin, path.join(repoRoot, "node_modules/.bin"), process.env.PATH].join(path.delimiter),
  };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, stdio: "pipe" });
  git("init", "-q");
  writeFileSync(path.join(repo, "README.md"), "# a user's repo\n");
  const init = await collect(spawn(process.execPath, [cliPath, "init"], { cwd: repo, env }));
  expect(init.code).toBe(0);
  // `npm install --save-dev sssf vitest`, as links: sssf resolves to this checkout's package.json
  // exports (dist/), vitest to the copy sssf is tested with.
  mkdirSync(bin, { recursive: true });
  symlinkSync(repoRoot, path.join(repo, "node_modules/sssf"));
  symlinkSync(path.join(repoRoot, "node_modules/vitest"), path.join(repo, "node_modules/vitest"));
  writeFileSync(path.join(bin, "sssf"), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
  chmodSync(path.join(bin, "sssf"), 0o755);
  writeFileSync(
    path.join(repo, ".gitignore"),
    `${readFileSync(path.join(repo, ".gitignore"), "utf8")}node_modules/\n`,
  );
  for (const [file, text] of blocks) {
    if (file === "command") continue;
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), text);
  }
  git("add", "-A");
  git("commit", "-q", "-m", "sssf init");
});
afterAll(() => {
  if (repo) {
    rmSync(repo, { recursive: true, force: true });
    rmSync(`${repo}.gitconfig`, { force: true });
  }
});

describe("docs/testing.md: test your own workflow in CI", () => {
  it("has the script, the command and the test file", () => {
    expect([...blocks.keys()]).toEqual([
      "test/fake-scripts/hello.json",
      "command",
      "test/hello.test.ts",
      "vitest.config.ts",
    ]);
  });

  it("the command runs the workflow offline and exits 0", async () => {
    const command = blocks.get("command")?.trim() ?? "";
    const result = await collect(spawn("/bin/sh", ["-c", command], { cwd: repo, env }));
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("ACCEPTED");
    expect(result.stdout).toContain("fake model answered 2 model request(s), refused 0 egress attempt(s)");
  });

  it("the vitest file passes under vitest", async () => {
    const vitest = path.join(repoRoot, "node_modules/vitest/vitest.mjs");
    const result = await collect(
      spawn(process.execPath, [vitest, "run", "--reporter", "verbose"], { cwd: repo, env }),
    );
    expect(result.stdout + result.stderr).toContain(
      "the builder writes hello.txt, offline, with the real pi",
    );
    expect(result.stdout).toMatch(/Tests\s+1 passed/);
    expect(result.code).toBe(0);
  });
});
