// Shared helpers for the benchmarks: statistics, timing child processes, scratch folders.
import { execFileSync, spawn, spawnSync } from "node:child_process";
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

/** Runs `sssf …args` in `cwd`; resolves with its exit code, wall ms and output (never rejects on a non-zero exit). */
export function sssf(cwd, args, { env = {}, node = [] } = {}) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...node, cli, ...args], {
      cwd,
      env: { ...process.env, ...GIT_IDENTITY, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({ code, wall: performance.now() - started, stdout, stderr, pid: child.pid }),
    );
  });
}

/** sssf's fake model server in this process (the `sssf/testing` entry of the build), playing `script`. */
export async function startFakeModel(script) {
  const { createFakeModelServer } = await import("../dist/testing/index.js");
  return createFakeModelServer({ script });
}

/** The pi CLI installed as sssf's dev dependency, run with this Node. */
export const piCommand = [
  process.execPath,
  path.join(root, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js"),
];

/**
 * A scratch repository whose agents are the real pi pointed at the fake model at `fakeUrl`: `files`
 * committed with the prompts `sssf init` writes (the ones users start from), the roster `agents`
 * (names of init's agents) on pi in a private pi world under `world`, and `config` merged in
 * (`quality`, `limits`…). The config is written as JSON, which YAML reads.
 */
export async function piRepo(dir, world, fakeUrl, { agents, files = {}, config = {} }) {
  const { fakeProxyEnv, writeFakePiWorld } = await import("../dist/testing/index.js");
  const pi = writeFakePiWorld(world, fakeUrl);
  const env = { ...pi.env, ...fakeProxyEnv(fakeUrl) };
  const git = (...args) =>
    execFileSync("git", args, { cwd: dir, stdio: "ignore", env: { ...process.env, ...GIT_IDENTITY } });
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  git("init", "-q", "-b", "main");
  execFileSync(process.execPath, [cli, "init"], { cwd: dir, stdio: "ignore" });
  const roster = agents.map((name) => ({ name, coding_agent: "pi", command: piCommand, env }));
  writeFileSync(
    path.join(dir, "adws/adw_sssf_config/sssf.config.yaml"),
    JSON.stringify({ agents: roster, ...config }, null, 2),
  );
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
}

/** Prints a benchmark's figures: one JSON object of `key: value` with `--json`, else a line each. */
export function printFigures(figures, json = process.argv.includes("--json")) {
  if (json) {
    console.log(JSON.stringify(figuresObject(figures)));
    return;
  }
  for (const f of figures)
    console.log(`${f.label}: ${fmt(f.value)} ${f.unit}${f.target ? `   (target ${f.target})` : ""}`);
}

/** `{key: value}` of the figures that name a key (snake_case), else of their labels made into keys. */
export function figuresObject(figures) {
  const keyOf = (f) =>
    f.key ??
    f.label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_|_$/g, "");
  return Object.fromEntries(figures.map((f) => [keyOf(f), f.value]));
}
