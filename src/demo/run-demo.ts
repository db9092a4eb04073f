/**
 * `sssf demo` without the printing: a scratch repo, the fake model playing the demo's story, and a
 * real `simple-sdlc` run whose agents are the real pi CLI pointed at that fake.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SssfConfig } from "../config/config-types.js";
import { loadConfig } from "../config/load-config.js";
import { type RunOutcome, runWorkflow } from "../engine/run-workflow.js";
import { BUILTIN_RUNTIME_IDS, builtinRuntimes } from "../runtimes/builtins.js";
import type { RunReporter } from "../session/reporter.js";
import { createFakeModelServer } from "../testing/fake-model/fake-model-server.js";
import { simpleSdlcWorkflow } from "../workflows/simple-sdlc.js";
import { type DemoPi, locateDemoPi, preparePiWorld } from "./demo-pi.js";
import { checkDemoDir, createDemoRepo, type DemoInitFiles, demoGit, demoRepoFiles } from "./demo-repo.js";
import { demoScript } from "./demo-story.js";
import { DEMO_REQUEST } from "./demo-story-files.js";

/** What `runDemo` needs from the CLI: where, the init-written files, and how to report. */
export interface RunDemoOptions {
  /** Where to create the scratch repo: absent or empty. Default: a new folder in the OS temp dir. */
  dir?: string | undefined;
  /** The config text and `.gitignore` lines, as `sssf init` writes them. */
  init: DemoInitFiles;
  /** The run's reporter, made once the scratch repo's folder is known. */
  reporter: (dir: string) => RunReporter;
  signal?: AbortSignal;
  /** Told once the repo exists and pi is found, before the run starts. */
  onReady?: (ready: { dir: string; pi: DemoPi; fakeUrl: string }) => void;
}

/** One commit of the run's branch, oldest first. */
export interface DemoCommit {
  sha: string;
  subject: string;
  files: string[];
}

/** Everything the demo's summary prints: the run, its commits, and what the fake model saw. */
export interface DemoOutcome {
  dir: string;
  config: SssfConfig;
  run: RunOutcome;
  pi: DemoPi;
  /** The commit the run started from, and the ref holding its commits (its branch, or HEAD in place). */
  base: string;
  tip: string;
  commits: DemoCommit[];
  /** Model requests the fake answered, and attempts to leave the machine it refused (should be 0). */
  modelRequests: number;
  egress: number;
  /** JSONL log of every model request and egress attempt. */
  fakeLog: string;
}

/** The demo's private files: pi's agent dir and HOME, the fake's log. Inside the ignored data dir. */
export function demoDataDir(config: SssfConfig): string {
  return path.join(config.dataDir, "demo");
}

/** The run's commits between `base` and `tip`, oldest first, each with the files it touched. */
async function listCommits(root: string, base: string, tip: string): Promise<DemoCommit[]> {
  const log = await demoGit(root, ["log", "--reverse", "--format=%h%x09%s", `${base}..${tip}`]);
  const commits: DemoCommit[] = [];
  for (const line of log.split("\n").filter((l) => l !== "")) {
    const [sha = "", subject = ""] = line.split("\t");
    const files = await demoGit(root, ["show", "--name-only", "--format=", sha]);
    commits.push({ sha, subject, files: files.split("\n").filter((f) => f !== "") });
  }
  return commits;
}

/**
 * Runs the demo end to end. Checks first (the folder, pi) so a refusal creates nothing; then the repo,
 * the fake model on 127.0.0.1, and `simple-sdlc` on the demo request. The fake is always closed.
 * Throws UsageError for a non-empty `dir`, SssfError when pi is missing or git fails.
 */
export async function runDemo(options: RunDemoOptions): Promise<DemoOutcome> {
  if (options.dir !== undefined) checkDemoDir(path.resolve(options.dir));
  const pi = locateDemoPi();
  const dir = path.resolve(options.dir ?? mkdtempSync(path.join(tmpdir(), "sssf-demo-")));
  const base = await createDemoRepo(dir, demoRepoFiles(options.init));
  const loaded = loadConfig({ cwd: dir, knownRuntimes: BUILTIN_RUNTIME_IDS });
  const privateDir = demoDataDir(loaded);
  const fakeLog = path.join(privateDir, "fake-model.jsonl");
  const fake = await createFakeModelServer({ script: demoScript(), logFile: fakeLog });
  try {
    const world = preparePiWorld(privateDir, fake.url);
    // In memory only: the committed config is what a user would run against a real model.
    const config: SssfConfig = {
      ...loaded,
      agents: loaded.agents.map((agent) => ({
        ...agent,
        command: pi.command,
        env: { ...agent.env, ...world.env },
      })),
    };
    options.onReady?.({ dir, pi, fakeUrl: fake.url });
    const run = await runWorkflow({
      registry: builtinRuntimes(),
      workflow: simpleSdlcWorkflow,
      request: DEMO_REQUEST,
      config,
      reporter: options.reporter(dir),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const from = run.session.base_ref ?? base;
    const tip = run.session.branch ?? "HEAD";
    return {
      dir,
      config,
      run,
      pi,
      base: from,
      tip,
      commits: await listCommits(dir, from, tip),
      modelRequests: fake.requests().length,
      egress: fake.egress().length,
      fakeLog,
    };
  } finally {
    await fake.close();
  }
}
