/**
 * docs/testing.md's "Keep a real run as a regression test", run as written: in a scratch repository
 * set up by `sssf init` with sssf installed as the built package (dist/: `npm run build` first), a run
 * is recorded with the real pi (its model a fake-model script standing in for a real model), the
 * documented command exports it, and the documented vitest file replays it under vitest.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, collect, repoRoot } from "../helpers/sandbox.js";

/** The blocks of docs/testing.md marked with `marker`: a file path (or `command`) → the fenced text. */
function exampleBlocks(marker: string): Map<string, string> {
  const page = readFileSync(path.join(repoRoot, "docs/testing.md"), "utf8");
  const blocks = new Map<string, string>();
  const pattern = new RegExp(`<!-- ${marker}: (\\S+) -->\\n\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``, "g");
  for (const match of page.matchAll(pattern)) blocks.set(match[1] ?? "", `${match[2] ?? ""}\n`);
  return blocks;
}

const blocks = exampleBlocks("recorded-run-example");
/** The page's own vitest config for a user's repository (it keeps vitest out of the runs' worktrees). */
const vitestConfig = exampleBlocks("user-ci-example").get("vitest.config.ts") ?? "";
const report = (fields: Record<string, unknown>) => JSON.stringify({ status: "success", ...fields });

let repo = "";
let env: NodeJS.ProcessEnv = {};
let adwId = "";

beforeAll(async () => {
  repo = mkdtempSync(path.join(tmpdir(), "sssf-recorded-"));
  const gitConfig = `${repo}.gitconfig`;
  writeFileSync(gitConfig, "[user]\n\tname = CI\n\temail = ci@example.com\n[init]\n\tdefaultBranch = main\n");
  const bin = path.join(repo, "node_modules/.bin");
  const userEnv = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_config_")),
  );
  env = {
    ...userEnv,
    NO_COLOR: "1",
    GIT_CONFIG_GLOBAL: gitConfig,
    GIT_CONFIG_NOSYSTEM: "1",
    PATH: [bin, path.join(repoRoot, "node_modules/.bin"), process.env.PATH].join(path.delimiter),
  };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, stdio: "pipe" });
  git("init", "-q");
  writeFileSync(path.join(repo, "README.md"), "# a user's repo\n");
  expect((await collect(spawn(process.execPath, [cliPath, "init"], { cwd: repo, env }))).code).toBe(0);
  mkdirSync(bin, { recursive: true });
  symlinkSync(repoRoot, path.join(repo, "node_modules/sssf"));
  symlinkSync(path.join(repoRoot, "node_modules/vitest"), path.join(repo, "node_modules/vitest"));
  writeFileSync(path.join(bin, "sssf"), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
  chmodSync(path.join(bin, "sssf"), 0o755);
  writeFileSync(
    path.join(repo, ".gitignore"),
    `${readFileSync(path.join(repo, ".gitignore"), "utf8")}node_modules/\n`,
  );
  writeFileSync(path.join(repo, "vitest.config.ts"), vitestConfig);
  git("add", "-A");
  git("commit", "-q", "-m", "sssf init");

  // The run worth keeping: here its model is a script, as a real model's answers would be recorded.
  const model = `${repo}.model.json`;
  writeFileSync(
    model,
    JSON.stringify({
      steps: [
        {
          match: { hasTools: true, afterToolResult: false },
          writeFile: {
            path: "specs/greet.md",
            content: "# Plan: greet\n\nExport greet() from src/greet.js.\n",
          },
        },
        {
          match: { afterToolResult: true },
          reply: report({
            summary: "planned greet",
            artifacts: ["specs/greet.md"],
            commit_message: "Plan greet",
          }),
        },
        {
          match: { hasTools: true, afterToolResult: false },
          writeFile: { path: "src/greet.js", content: "export const greet = () => 'hi';\n" },
        },
        {
          match: { afterToolResult: true },
          reply: report({
            summary: "built greet",
            changed_files: ["src/greet.js"],
            commit_message: "Add greet",
          }),
        },
      ],
    }),
  );
  const run = await collect(
    spawn(process.execPath, [cliPath, "run", "plan-build", "Add a greet function", "--fake-script", model], {
      cwd: repo,
      env,
    }),
  );
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  adwId = /adw_id (\S+)/.exec(run.stdout)?.[1] ?? "";
});
afterAll(() => {
  if (repo)
    for (const leftover of [repo, `${repo}.gitconfig`, `${repo}.model.json`])
      rmSync(leftover, { recursive: true, force: true });
});

describe("docs/testing.md: keep a real run as a regression test", () => {
  it("has the command and the test file", () => {
    expect([...blocks.keys()]).toEqual(["command", "test/greet.recorded.test.ts"]);
    expect(vitestConfig).toContain("adws/**");
  });

  it("the command exports the run, and the documented test replays it under vitest", async () => {
    // The page's adw_id stands for the run's own.
    const command = (blocks.get("command") ?? "").trim().replace("3f9a1c2e", adwId);
    const exported = await collect(spawn("/bin/sh", ["-c", command], { cwd: repo, env }));
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(
      `run ${adwId}: 4 step(s) from planner (pi: 1 send(s), 2 model turn(s)), builder (pi: 1 send(s), 2 model turn(s))`,
    );
    expect(exported.stdout).toContain("play it: sssf run plan-build 'Add a greet function' --fake-script ");

    const test = "test/greet.recorded.test.ts";
    mkdirSync(path.join(repo, "test"), { recursive: true });
    writeFileSync(path.join(repo, test), blocks.get(test) ?? "");
    const vitest = path.join(repoRoot, "node_modules/vitest/vitest.mjs");
    const result = await collect(
      spawn(process.execPath, [vitest, "run", "--reporter", "verbose"], { cwd: repo, env }),
    );
    expect(result.stdout + result.stderr).toContain(
      "the recorded greet run still goes the same way, offline",
    );
    expect(result.stdout).toMatch(/Tests\s+1 passed/);
    expect(result.code).toBe(0);
  });

  it("the documented test fails once the run no longer goes the recorded way", async () => {
    // The recording loses the builder's last answer: the re-run asks for an answer it does not hold,
    // gets the fake's error instead of an invented reply, and the test must say so.
    const file = path.join(repo, "test/recorded/greet.json");
    const script = JSON.parse(readFileSync(file, "utf8"));
    script.steps.pop();
    writeFileSync(file, JSON.stringify(script));
    const vitest = path.join(repoRoot, "node_modules/vitest/vitest.mjs");
    const result = await collect(spawn(process.execPath, [vitest, "run"], { cwd: repo, env }));
    expect(result.stdout).toMatch(/Tests\s+1 failed/);
    expect(result.code).toBe(1);
  });
});
