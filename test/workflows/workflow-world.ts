import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { type AgentSpec, envelopeJson, Sandbox } from "../helpers/sandbox.js";

export const GIT_ENV = {
  GIT_AUTHOR_NAME: "Operator",
  GIT_AUTHOR_EMAIL: "operator@example.test",
  GIT_COMMITTER_NAME: "Operator",
  GIT_COMMITTER_EMAIL: "operator@example.test",
};

export function git(dir: string, args: string[]): string {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, ...GIT_ENV } });
}

/**
 * The app the scripted agents work on, and a check that passes only once `add` really adds. Before
 * any build `src/app.js` is missing, a failure of its own (exit 2, as test runners report a suite that
 * cannot load): a wrong `add` (exit 1) is then the change's, and gets fix rounds after the baseline.
 */
const CHECK = `import { existsSync, readFileSync } from "node:fs";
if (!existsSync("src/app.js")) {
  console.log("FAIL cannot load src/app.js");
  process.exit(2);
}
const source = readFileSync("src/app.js", "utf8");
if (!source.includes("return a + b")) {
  console.log("FAIL add(2, 3) expected 5");
  process.exit(1);
}
console.log("ok 1 add");
`;

export interface WorldOptions {
  agents: AgentSpec[];
  /** `quality:` section (default: `test` runs check.mjs). */
  quality?: Record<string, unknown>;
}

/** A git repo with one commit, the five-agent roster scripted, and a `test` suite. */
export class WorkflowWorld {
  readonly sb = new Sandbox();
  base = "";

  constructor(options: WorldOptions) {
    const { sb } = this;
    writeFileSync(path.join(sb.dir, "check.mjs"), CHECK);
    writeFileSync(
      path.join(sb.dir, ".gitignore"),
      ".agents/\nadws/adw_data/sessions/\nadws/adw_data/*.db*\nadws/adw_data/.worktrees/\nadws/adw_data/baselines/\nadws/adw_data/.baseline-worktrees/\n",
    );
    sb.setup(options.agents, {
      quality: options.quality ?? { test: { command: ["node", "check.mjs"], timeout_seconds: 60 } },
    });
    git(sb.dir, ["init", "-q", "-b", "main"]);
    git(sb.dir, ["add", "-A"]);
    git(sb.dir, ["commit", "-q", "-m", "initial"]);
    this.base = git(sb.dir, ["rev-parse", "HEAD"]).trim();
  }

  run(args: string[]) {
    return this.sb.run(args, GIT_ENV);
  }

  /**
   * Where the run's commits landed: its branch when it had a worktree, else HEAD. An accepted run that
   * committed nothing removes its branch: its commits are then the empty range at the base.
   */
  ref(adwId: string): string {
    const [row] = this.sb.query<{ branch?: string | null }>("SELECT * FROM sessions WHERE adw_id = ?", adwId);
    const branch = row?.branch ?? "HEAD";
    if (branch === "HEAD") return branch;
    const exists = git(this.sb.dir, ["branch", "--list", branch, "--format=%(refname:short)"]).trim() !== "";
    return exists ? branch : this.base;
  }

  /** Subjects of the run's commits, oldest first. */
  commits(adwId: string): string[] {
    const out = git(this.sb.dir, ["log", "--reverse", "--format=%s", `${this.base}..${this.ref(adwId)}`]);
    return out.split("\n").filter(Boolean);
  }

  /** The body of the n-th (0-based, oldest first) commit of the run, trimmed. */
  commitBody(adwId: string, n: number): string {
    const out = git(this.sb.dir, ["log", "--reverse", "--format=%H", `${this.base}..${this.ref(adwId)}`]);
    const sha = out.split("\n").filter(Boolean)[n] ?? "";
    return git(this.sb.dir, ["show", "-s", "--format=%b", sha]).trim();
  }

  /** Files of the n-th (0-based, oldest first) commit of the run. */
  commitFiles(adwId: string, n: number): string[] {
    const ids = git(this.sb.dir, ["log", "--reverse", "--format=%H", `${this.base}..${this.ref(adwId)}`])
      .split("\n")
      .filter(Boolean);
    const id = ids[n];
    if (!id) throw new Error(`run ${adwId} has no commit #${n}`);
    return git(this.sb.dir, ["show", "--name-only", "--format=", id]).split("\n").filter(Boolean).sort();
  }

  phases(adwId: string): string[] {
    return this.sb
      .query<{ name: string; status: string }>(
        "SELECT name, status FROM phases WHERE adw_id = ? ORDER BY number",
        adwId,
      )
      .map((p) => `${p.name}:${p.status}`);
  }

  cleanup(): void {
    this.sb.cleanup();
  }
}

export const reply = envelopeJson;

/** Planner writing `specs/add.md`. */
export const plannerTurns: ScriptedTurn[] = [
  {
    tool_calls: [
      { tool: "write", write_file: { path: "specs/add.md", content: "# Plan\n\nAdd `add(a, b)`.\n" } },
    ],
    reply: reply({
      summary: "planned add",
      artifacts: ["specs/add.md"],
      commit_message: "Plan the add function",
    }),
  },
];

export const buggyBuild: ScriptedTurn = {
  tool_calls: [
    { tool: "write", write_file: { path: "src/app.js", content: "export const add = (a, b) => a - b;\n" } },
  ],
  reply: reply({
    summary: "added add",
    changed_files: ["src/app.js"],
    commit_message: "Add the add function",
  }),
};

export const goodBuild: ScriptedTurn = {
  tool_calls: [
    {
      tool: "write",
      write_file: { path: "src/app.js", content: "export function add(a, b) {\n  return a + b;\n}\n" },
    },
  ],
  reply: reply({
    summary: "added add",
    changed_files: ["src/app.js"],
    commit_message: "Add the add function",
  }),
};

export const fixTurn: ScriptedTurn = {
  match: "suite fails",
  tool_calls: goodBuild.tool_calls ?? [],
  reply: reply({ summary: "fixed the sign", changed_files: ["src/app.js"], commit_message: "Fix add" }),
};

export const approve: ScriptedTurn = {
  reply: reply({
    summary: "looks right",
    approved: true,
    findings: [{ requirement: "add adds", met: true, evidence: "src/app.js returns a + b" }],
    blocking: [],
  }),
};

export const documenterTurns: ScriptedTurn[] = [
  {
    tool_calls: [
      { tool: "write", write_file: { path: "docs/add.md", content: "# add\n\n`add(a, b)` sums.\n" } },
    ],
    reply: reply({
      summary: "documented add",
      document_path: "docs/add.md",
      documented_files: ["src/app.js"],
      artifacts: ["docs/add.md"],
      commit_message: "Document the add function",
    }),
  },
];
