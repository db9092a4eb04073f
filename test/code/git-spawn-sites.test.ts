import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/sandbox.js";

/**
 * Every git command sssf starts goes through `src/code/run-git.ts`, which applies `git-safety.ts`: no
 * other file in src/ may start git itself (directly, through a shell, or by a path ending in /git).
 */
const src = path.join(repoRoot, "src");
const ALLOWED = new Set(["code/run-git.ts"]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(full);
    return /\.(?:[cm]?[jt]sx?)$/.test(entry.name) ? [full] : [];
  });
}

/** A process start whose program is git: `spawn("git"`, `execFile('git'`, `execa(\`git\``, `spawnSync("/usr/bin/git"`… */
const PROGRAM_GIT =
  /\b(?:spawn|spawnSync|exec|execSync|execFile|execFileSync|fork|execa|execaSync|\$)\s*\(\s*(["'`])(?:[^"'`]*\/)?git\1/;
/** A shell command line starting git: `exec("git status")`, `["sh", "-c", "git …"]`, `"cd x && git …"`. */
const SHELL_GIT =
  /\b(?:exec|execSync)\s*\(\s*(["'`])\s*git\s|["'`]-c["'`]\s*,\s*["'`][^"'`]*\bgit\s|\b(?:exec|execSync|spawn|spawnSync)\s*\(\s*["'`][^"'`]*(?:&&|;|\|)\s*git\s/;

function offenders(files: { name: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { name, text } of files) {
    if (ALLOWED.has(name)) continue;
    text.split("\n").forEach((line, index) => {
      if (PROGRAM_GIT.test(line) || SHELL_GIT.test(line)) found.push(`${name}:${index + 1}: ${line.trim()}`);
    });
  }
  return found;
}

describe("git is started in one place", () => {
  it("no file in src/ but run-git.ts starts a git process", () => {
    const files = filesUnder(src).map((file) => ({
      name: path.relative(src, file).split(path.sep).join("/"),
      text: readFileSync(file, "utf8"),
    }));
    expect(files.length).toBeGreaterThan(50);
    expect(offenders(files)).toEqual([]);
  });

  it("run-git starts git only with the arguments and environment git-safety made", () => {
    const runGit = readFileSync(path.join(src, "code/run-git.ts"), "utf8");
    expect(runGit).toContain("safeGitCommand(");
    expect(runGit).toContain("safeGitCommandSync(");
    // Every start in run-git.ts passes an environment computed by the rule, never process.env itself.
    expect(runGit).not.toMatch(/env:\s*process\.env/);
  });

  it("the check finds the shapes a bypass would take", () => {
    const shapes = [
      'spawn("git", ["status"])',
      "execFile('git', args, cb)",
      "execFileSync(`git`, [])",
      'spawnSync("/usr/bin/git", ["log"])',
      'execSync("git status --porcelain")',
      'exec("git rev-parse HEAD", cb)',
      'spawn("sh", ["-c", "git status"])',
      'execSync("cd /x && git add -A")',
      'await execa("git", ["commit"])',
    ];
    for (const shape of shapes) expect(offenders([{ name: "x.ts", text: shape }]), shape).toHaveLength(1);
    expect(offenders([{ name: "x.ts", text: 'spawn("gitleaks", [])\nconst git = "x";' }])).toEqual([]);
  });
});
