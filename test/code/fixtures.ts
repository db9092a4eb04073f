import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Identity and isolation for test repositories: no global config, no signing. */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "sssf test",
  GIT_AUTHOR_EMAIL: "test@sssf.invalid",
  GIT_COMMITTER_NAME: "sssf test",
  GIT_COMMITTER_EMAIL: "test@sssf.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: os.devNull,
};

/** A fresh directory under the OS temp dir; remove it with `removeTempDir`. */
export function makeTempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `sssf-${label}-`));
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Runs git in `dir` with a fixed identity; returns stdout. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "commit.gpgsign=false", ...args], {
    cwd: dir,
    env: GIT_ENV,
    encoding: "utf8",
  });
}

/** `git init` plus an optional first commit of `files`. */
export function initRepo(dir: string, files: Record<string, string> = {}): void {
  git(dir, "init", "-q", "-b", "main");
  if (Object.keys(files).length === 0) return;
  writeFiles(dir, files);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "initial");
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as dead. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}
