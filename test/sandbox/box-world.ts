import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type CliResult, cliPath, collect } from "../helpers/sandbox.js";

const here = path.dirname(fileURLToPath(import.meta.url));
export const BOX_AGENT = path.join(here, "fixtures/box-agent.mjs");

/** True where bubblewrap can box an agent; CI (SSSF_REQUIRE_SANDBOX=1) fails instead of skipping. */
export function bwrapWorks(): boolean {
  let works = false;
  try {
    execFileSync(
      "bwrap",
      ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/sh", "-c", ":"],
      {
        stdio: "ignore",
      },
    );
    works = true;
  } catch {
    works = false;
  }
  if (!works && process.env.SSSF_REQUIRE_SANDBOX === "1")
    throw new Error("SSSF_REQUIRE_SANDBOX=1 but bubblewrap cannot make a sandbox here");
  return works;
}

const git = (cwd: string, args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
  });

/**
 * A checkout with one exec agent (box-agent.mjs), a home folder holding credential files, and a
 * folder beside the checkout: everything a hostile agent would try to reach.
 */
export class BoxWorld {
  readonly root = mkdtempSync(path.join(tmpdir(), "sssf-box-"));
  readonly dir = path.join(this.root, "repo");
  readonly home = path.join(this.root, "home");
  readonly outside = path.join(this.root, "outside");

  constructor(agentSandbox: Record<string, unknown> = {}) {
    for (const folder of [this.dir, this.home, this.outside]) mkdirSync(folder, { recursive: true });
    for (const [file, text] of Object.entries({
      ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\nbox-test-key\n",
      ".netrc": "machine example.com login me password box-test-netrc\n",
      ".aws/credentials": "[default]\naws_secret_access_key=box-test-aws\n",
      ".git-credentials": "https://me:box-test-token@example.com\n",
    })) {
      mkdirSync(path.dirname(path.join(this.home, file)), { recursive: true });
      writeFileSync(path.join(this.home, file), text);
    }
    const prompts = path.join(this.dir, "adws/adw_data/prompt_engineering/agent");
    mkdirSync(prompts, { recursive: true });
    writeFileSync(path.join(prompts, "system.md"), "You are a test agent.\n");
    writeFileSync(path.join(prompts, "user.md"), "{{prompt}}\nHANDOFF={{context_handoff_dir}}\n");
    mkdirSync(path.join(this.dir, "adws/adw_sssf_config"), { recursive: true });
    const config = {
      agents: [
        { name: "agent", coding_agent: "exec", command: [process.execPath, BOX_AGENT], ...agentSandbox },
      ],
    };
    writeFileSync(
      path.join(this.dir, "adws/adw_sssf_config/sssf.config.yaml"),
      JSON.stringify(config, null, 2),
    );
    writeFileSync(path.join(this.dir, "README.md"), "# box\n");
    writeFileSync(
      path.join(this.dir, ".gitignore"),
      "adws/adw_data/sessions/\nadws/adw_data/.worktrees/\nadws/adw_data/sssf.db*\n",
    );
    git(this.dir, ["init", "-q", "-b", "main"]);
    git(this.dir, ["-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"]);
    git(this.dir, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start"]);
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...(process.env as Record<string, string>),
      HOME: this.home,
      NO_COLOR: "1",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
      ...extra,
    };
  }

  start(args: string[], env: Record<string, string> = {}): ChildProcess {
    return spawn(process.execPath, [cliPath, ...args], {
      cwd: this.dir,
      env: this.env(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
  }

  run(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return collect(this.start(args, env));
  }

  /** The prompt that makes the agent do `actions`. */
  static request(actions: unknown[]): string {
    return `ACTIONS:${JSON.stringify(actions)}`;
  }

  sessionDir(adwId: string): string {
    return path.join(this.dir, "adws/adw_data/sessions", adwId);
  }

  /** The agent's accepted summary: one outcome per line. */
  outcomes(adwId: string): string[] {
    const file = path.join(this.sessionDir(adwId), "agent/envelope.json");
    const envelope = JSON.parse(readFileSync(file, "utf8")) as {
      summary?: string;
      envelope?: { summary?: string };
    };
    return (envelope.summary ?? envelope.envelope?.summary ?? "").split("\n");
  }

  worktree(adwId: string): string {
    return path.join(this.dir, "adws/adw_data/.worktrees", adwId);
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Pids of live processes whose environment says they work for `adwId` (sssf's own marker). */
export function processesOf(adwId: string): number[] {
  const needle = Buffer.from(`SSSF_ADW_ID=${adwId}\0`);
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`);
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && environ.includes(needle)) found.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

export const exists = (file: string) => existsSync(file);
