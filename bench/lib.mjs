// Shared helpers for the benchmarks: statistics, timing child processes, scratch folders.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const cli = path.join(root, "dist/cli/main.js");

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export const median = (values) => percentile(values, 50);

/** Wall time of a command, `runs` times, in ms. */
export function timeCommand(argv, runs, options = {}) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = spawnSync(argv[0], argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], ...options });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${argv.join(" ")} exited ${result.status}: ${result.stderr}`);
  }
  return times;
}

export function scratch(prefix) {
  const dir = mkdtempSync(path.join(tmpdir(), `sssf-bench-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));

/** The commit identity the benches' scratch repositories use. */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@b",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@b",
};

/**
 * A scratch git repository with one commit for a benchmark run: `agents` as the roster (each agent's
 * `system.md` and `user.md` written), the data dir ignored, and `files` (repo-relative path → text).
 */
export function benchRepo(dir, { agents, files = {}, config = { agents } }) {
  const git = (...args) =>
    execFileSync("git", args, { cwd: dir, stdio: "ignore", env: { ...process.env, ...GIT_IDENTITY } });
  for (const agent of agents) {
    const prompts = path.join(dir, "adws/adw_data/prompt_engineering", agent.name);
    mkdirSync(prompts, { recursive: true });
    writeFileSync(path.join(prompts, "system.md"), "Do the task, then reply with the JSON report.\n");
    writeFileSync(path.join(prompts, "user.md"), "{{prompt}}\n");
  }
  mkdirSync(path.join(dir, "adws/adw_sssf_config"), { recursive: true });
  writeFileSync(path.join(dir, "adws/adw_sssf_config/sssf.config.yaml"), JSON.stringify(config));
  writeFileSync(path.join(dir, ".gitignore"), "adws/adw_data/\n");
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
}
