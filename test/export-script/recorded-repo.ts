/**
 * A scratch git repository with a planner and a builder on one real CLI, where a run is recorded
 * against a fake-model script, and the facts of a stored run two runs are compared on: phases,
 * accepted envelopes, the files its branch holds.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { adwIdFrom, type CliResult, cliPath, collect } from "../helpers/sandbox.js";

export interface RecordedRepo {
  dir: string;
  /** `sssf <args>` in `cwd` (default the repo). */
  sssf(args: string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<CliResult>;
  /** A fresh `git clone` of the repository (its committed state, none of its runs). */
  clone(): string;
  cleanup(): void;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" });

/** A repo whose planner and builder run `command` as `codingAgent`, each with its own user prompt. */
export function createRecordedRepo(codingAgent: string, command: string): RecordedRepo {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-export-"));
  const clones: string[] = [];
  const write = (relative: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    writeFileSync(path.join(dir, relative), text);
  };
  write("README.md", "# app\n");
  for (const [agent, task] of [
    ["planner", "Write the plan for"],
    ["builder", "Implement the plan for"],
  ]) {
    write(`adws/adw_data/prompt_engineering/${agent}/system.md`, `# ${agent}\n\nDo the task, then report.\n`);
    write(`adws/adw_data/prompt_engineering/${agent}/user.md`, `# Task\n\n${task}: {{prompt}}\n`);
  }
  write(
    "adws/adw_sssf_config/sssf.config.yaml",
    JSON.stringify({
      agents: ["planner", "builder"].map((name) => ({ name, coding_agent: codingAgent, command: [command] })),
    }),
  );
  write(
    ".gitignore",
    "adws/adw_data/sessions/\nadws/adw_data/.worktrees/\nadws/adw_data/*.db*\nadws/adw_data/fake-model/\n",
  );
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "init");
  return {
    dir,
    sssf: (args, options = {}) =>
      collect(
        spawn(process.execPath, [cliPath, ...args], {
          cwd: options.cwd ?? dir,
          env: { ...process.env, NO_COLOR: "1", ...GIT_ENV, ...options.env },
          stdio: ["ignore", "pipe", "pipe"],
        }),
      ),
    clone() {
      const parent = mkdtempSync(path.join(tmpdir(), "sssf-export-clone-"));
      clones.push(parent);
      git(parent, "clone", "-q", dir, "repo");
      return path.join(parent, "repo");
    },
    cleanup() {
      for (const folder of [dir, ...clones]) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** What two runs of the same recording must share. */
export interface RunFacts {
  accepted: boolean;
  phases: { name: string; kind: string; status: string }[];
  /** Each agent phase's accepted envelope, parsed. */
  envelopes: { phase: string; output_type: string; envelope: unknown }[];
  /** Every file the run's branch changed, with its content. */
  files: Record<string, string>;
}

/** The facts of run `adwId` stored in `repo`. */
export function runFacts(repo: string, stdout: string): RunFacts {
  const adwId = adwIdFrom(stdout);
  const db = openRawSqlite(path.join(repo, "adws/adw_data/sssf.db"), { readonly: true });
  try {
    const session = db
      .prepare("SELECT accepted, branch, base_ref FROM sessions WHERE adw_id = ?")
      .get(adwId) as {
      accepted: number;
      branch: string;
      base_ref: string;
    };
    const phases = db
      .prepare("SELECT name, kind, status FROM phases WHERE adw_id = ? ORDER BY number")
      .all(adwId) as RunFacts["phases"];
    const envelopes = (
      db
        .prepare(
          `SELECT p.name AS phase, e.output_type, e.envelope_json FROM envelopes e JOIN phases p ON p.id = e.phase_id
           WHERE e.adw_id = ? AND e.accepted = 1 AND p.kind = 'agent' ORDER BY p.number`,
        )
        .all(adwId) as { phase: string; output_type: string; envelope_json: string }[]
    ).map((row) => ({
      phase: row.phase,
      output_type: row.output_type,
      envelope: JSON.parse(row.envelope_json),
    }));
    const names = git(repo, "diff", "--name-only", `${session.base_ref}..${session.branch}`)
      .split("\n")
      .filter(Boolean);
    const files = Object.fromEntries(
      names.map((name) => [name, git(repo, "show", `${session.branch}:${name}`)]),
    );
    return { accepted: session.accepted === 1, phases, envelopes, files };
  } finally {
    db.close();
  }
}
