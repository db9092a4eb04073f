import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createScriptedAgent,
  type ScriptedAgent,
  type ScriptedToolCall,
  type ScriptedTurn,
} from "../../src/testing/index.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { type CliResult, cliPath, collect, envelopeJson } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import { GIT_ENV } from "../worktree/worktree-world.js";

/**
 * The workflow `land`: a planner, a builder gated on its claimed changes (and on a gate the test can
 * hold, to kill sssf after the builder's last message but before its envelope is journaled), then a
 * code phase that commits and runs a suite the test can hold too.
 */
function landWorkflow(ctrl: string): string {
  const at = (name: string) => JSON.stringify(path.join(ctrl, name));
  return `import { existsSync, rmSync, writeFileSync } from "node:fs";
import { BuildOutput, defineGate, defineWorkflow, GenericOutput, gates } from "sssf";
const hold = defineGate("hold", async (_envelope, _context, report) => {
  if (existsSync(${at("hold-gate")})) {
    rmSync(${at("hold-gate")});
    writeFileSync(${at("hung")}, "gate");
    // A timer keeps sssf alive: a bare pending promise would let it run out of work and exit.
    await new Promise(() => setInterval(() => {}, 60_000));
  }
  report.check("hold", true, "not held");
});
export default defineWorkflow({
  name: "land",
  description: "Plan, build, commit and check",
  agents: ["planner", "builder"],
  suites: ["slow"],
  async run(run, request) {
    const planned = await run.agent("plan", { owner: "planner", description: "Plan" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    const built = await run.agent("build", { owner: "builder", description: "Build" }, (phase) =>
      phase.call({ outputType: BuildOutput, prompt: "build: " + planned.summary, gates: [gates.diffMatchesClaims, hold] }));
    const made = await run.code("commit", { owner: "git", description: "Commit and check" }, async (phase) => {
      const commit = await phase.commit(built.commit_message);
      await phase.runSuite("slow");
      return commit;
    });
    return run.finish({ accepted: made !== null, reason: made === null ? "nothing committed" : made.message });
  },
});
`;
}

/** The suite: held once (it says so and waits) while the control file `hold-suite` exists. */
const SLOW = `import { existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
const ctrl = process.argv[2];
if (existsSync(path.join(ctrl, "hold-suite"))) {
  rmSync(path.join(ctrl, "hold-suite"));
  writeFileSync(path.join(ctrl, "suite.pid"), String(process.pid));
  writeFileSync(path.join(ctrl, "hung"), "suite");
  setInterval(() => {}, 60_000);
} else console.log("ok 1");
`;

/** Names the run's paths in every prompt, as real templates do: what a resume elsewhere must see past. */
const USER =
  "# Task\n\n{{prompt}}\n\nWrite notes to {{context_handoff_dir}}.\n\n## previous_envelope\n\n{{previous_envelope}}\n";
const SYSTEM = "# {{adw_id}} agent\n\nDo the task, then reply with the JSON report.\n";

/** The files the repository starts with (tracked). */
export const TRACKED: Record<string, string> = {
  "src/a.txt": "a\n",
  "src/b.txt": "b\n",
  "src/c.txt": "c\n",
  "docs/d.md": "# d\n",
  "docs/e.md": "# e\n",
  "lib/f.txt": "f\n",
};

/** One file operation of the builder. */
export type FileOp =
  | { kind: "modify"; path: string; content: string }
  | { kind: "create"; path: string; content: string }
  | { kind: "delete"; path: string }
  | { kind: "ignored"; path: string; content: string };

/** mulberry32: a small seeded PRNG, so generated kill points are the same on every run. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The builder's operations, generated from `seed`: every tracked file touched at most once, at least
 * two modifications, two creations (one in a new folder), one deletion and one write to an ignored path.
 */
export function generateOps(seed: number): FileOp[] {
  const random = prng(seed);
  const pick = <T>(list: T[]): T => list.splice(Math.floor(random() * list.length), 1)[0] as T;
  const tracked = Object.keys(TRACKED);
  const ops: FileOp[] = [
    { kind: "modify", path: pick(tracked), content: "modified one\n" },
    { kind: "modify", path: pick(tracked), content: "modified two\n" },
    { kind: "create", path: "src/new.txt", content: "new\n" },
    { kind: "create", path: "pkg/deep/new.txt", content: "deep\n" },
    { kind: "delete", path: pick(tracked) },
    { kind: "ignored", path: "build/out.log", content: "built\n" },
  ];
  const shuffled: FileOp[] = [];
  while (ops.length > 0) shuffled.push(pick(ops));
  return shuffled;
}

/** The paths `ops` change as git sees them (ignored writes are not changes). */
export function changedPaths(ops: readonly FileOp[]): string[] {
  return ops
    .filter((op) => op.kind !== "ignored")
    .map((op) => op.path)
    .sort();
}

function toolCall(op: FileOp): ScriptedToolCall {
  if (op.kind === "delete") return { tool: "delete", delete_file: op.path };
  return { tool: "write", write_file: { path: op.path, content: op.content } };
}

/**
 * A tool call that records what the agent sees: every non-ignored file with its sha1 into `file`, and
 * what the ignored folder `build/` holds into `<file>.ignored`.
 */
export function seeCall(file: string): ScriptedToolCall {
  return {
    tool: "bash",
    args: { command: "list the files" },
    bash: `git ls-files -co --exclude-standard -z | sort -z | xargs -0 sha1sum > "${file}"; ls build > "${file}.ignored" 2>/dev/null; true`,
  };
}

/** A git repo with the workflow `land`, the suite `slow` and scripted agents `planner` and `builder`. */
export class LandingWorld {
  readonly base: string;
  /** Where the repository is now (a test may move it). */
  repo: string;
  readonly ctrl: string;
  readonly agentsDir: string;
  readonly agents = new Map<string, ScriptedAgent>();
  /** Extra environment of every sssf this world starts (`SSSF_DB` for a shared trace). */
  env: Record<string, string> = {};
  /** Where the trace is, when not in the repo's data dir. */
  dbPath: string | null = null;

  constructor(
    turnsFor: (ctrl: string) => { planner: ScriptedTurn[]; builder: ScriptedTurn[] },
    options: { dataDir?: string } = {},
  ) {
    this.base = mkdtempSync(path.join(tmpdir(), "sssf-land-"));
    this.repo = path.join(this.base, "repo");
    this.agentsDir = path.join(this.base, "agents");
    this.ctrl = path.join(this.agentsDir, "ctrl");
    mkdirSync(this.ctrl, { recursive: true });
    const turns = turnsFor(this.ctrl);
    mkdirSync(path.join(this.repo, "adws"), { recursive: true });
    for (const [file, content] of Object.entries(TRACKED)) this.write(file, content);
    this.write("adws/adw_land.ts", landWorkflow(this.ctrl));
    this.write(".gitignore", "adws/adw_data/\nbuild/\n");
    this.write("slow.mjs", SLOW);
    const roster = (["planner", "builder"] as const).map((name) => {
      const agent = createScriptedAgent({ dir: this.agentsDir, name, turns: turns[name] });
      this.agents.set(name, agent);
      const prompts = path.join("adws/prompts", name);
      this.write(path.join(prompts, "system.md"), SYSTEM);
      this.write(path.join(prompts, "user.md"), USER);
      return {
        name,
        ...agent.rosterEntry,
        prompt_engineering: { system: `${prompts}/system.md`, user: `${prompts}/user.md` },
      };
    });
    this.writeConfig({
      ...(options.dataDir === undefined ? {} : { defaults: { data_dir: options.dataDir } }),
      // Unboxed: a box per send costs seconds on a busy machine, and boxing is not what is tested here.
      sandbox: { mode: "off" },
      agents: roster,
      quality: { slow: { command: ["node", "slow.mjs", this.ctrl], timeout_seconds: 120 } },
    });
    this.git(["init", "-q", "-b", "main"]);
    this.git(["add", "-A"]);
    this.git(["commit", "-q", "-m", "initial"]);
  }

  write(file: string, content: string): void {
    const target = path.join(this.repo, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }

  writeConfig(config: unknown): void {
    this.write("adws/adw_sssf_config/sssf.config.yaml", JSON.stringify(config, null, 2));
  }

  git(args: string[], cwd = this.repo): string {
    return execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, ...GIT_ENV } });
  }

  start(args: string[]): ChildProcess {
    return spawn(process.execPath, [cliPath, ...args], {
      cwd: this.repo,
      env: { ...process.env, NO_COLOR: "1", ...GIT_ENV, ...this.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
  }

  run(args: string[]): Promise<CliResult> {
    return collect(this.start(args));
  }

  query<T>(sql: string, ...params: unknown[]): T[] {
    const db = openRawSqlite(this.dbPath ?? path.join(this.repo, "adws/adw_data/sssf.db"), {
      readonly: true,
    });
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  }

  sends(agent: string): number {
    return this.agents.get(agent)?.sends().length ?? 0;
  }

  /** `name:status` of every phase row, by number, `+r` when replayed. */
  phases(adwId: string): string[] {
    return this.query<{ name: string; status: string; replayed_at: string | null }>(
      "SELECT name, status, replayed_at FROM phases WHERE adw_id = ? ORDER BY number",
      adwId,
    ).map((p) => `${p.name}:${p.status}${p.replayed_at === null ? "" : "+r"}`);
  }

  /** The run's branch (as the trace has it). */
  branch(adwId: string): string {
    const [row] = this.query<{ branch: string }>("SELECT branch FROM sessions WHERE adw_id = ?", adwId);
    if (!row) throw new Error(`no session ${adwId}`);
    return row.branch;
  }

  /** Subjects of the commits on the run's branch after `main`, oldest first. */
  commits(adwId: string): string[] {
    return this.git(["log", "--format=%s", "--reverse", `main..${this.branch(adwId)}`])
      .trim()
      .split("\n")
      .filter(Boolean);
  }

  /** The files of the branch's tip and their contents, sssf's own and the test's scaffolding left out. */
  tipFiles(adwId: string): Record<string, string> {
    const branch = this.branch(adwId);
    const files: Record<string, string> = {};
    for (const file of this.git(["ls-tree", "-r", "--name-only", branch]).trim().split("\n")) {
      if (file.startsWith("adws/") || file === "slow.mjs" || file === ".gitignore") continue;
      files[file] = this.git(["show", `${branch}:${file}`]);
    }
    return files;
  }

  /** Starts `land`, waits for the control file `hung`, kills sssf with SIGKILL and ends what it left. */
  async crash(adwId: string, hold: "agent" | "gate" | "suite", extra: string[] = []): Promise<void> {
    if (hold === "gate") writeFileSync(path.join(this.ctrl, "hold-gate"), "");
    if (hold === "suite") writeFileSync(path.join(this.ctrl, "hold-suite"), "");
    const child = this.start(["run", "land", "make it", "--adw-id", adwId, ...extra]);
    const done = collect(child);
    const hung = path.join(this.ctrl, "hung");
    await waitFor(
      () => existsSync(hung) || child.exitCode !== null,
      60_000,
      "the run to reach its kill point",
    );
    if (!existsSync(hung))
      throw new Error(`the run ended before its kill point: ${JSON.stringify(await done)}`);
    child.kill("SIGKILL");
    await done;
    rmSync(hung);
    this.endLeftovers();
  }

  /** Ends every process group the trace still lists as running, and a held suite. */
  endLeftovers(): void {
    const pids = this.query<{ pid: number }>("SELECT pid FROM processes WHERE status = 'running'").map(
      (r) => r.pid,
    );
    for (const pid of pids) kill(-pid);
    const suite = path.join(this.ctrl, "suite.pid");
    if (existsSync(suite)) {
      kill(Number(readFileSync(suite, "utf8")));
      rmSync(suite);
    }
  }

  cleanup(): void {
    rmSync(this.base, { recursive: true, force: true });
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** The builder's turn: look at the tree, apply `ops`, and claim exactly what they change. */
export function builderTurn(ops: readonly FileOp[], seen: string): ScriptedTurn {
  return {
    tool_calls: [seeCall(seen), ...ops.map(toolCall)],
    reply: envelopeJson({
      summary: "built",
      changed_files: changedPaths(ops),
      commit_message: "Build the feature",
    }),
  };
}

/** The builder's first turn killed at `k`: look, apply the first `k` ops, say so, and hang. */
export function hangingBuilderTurn(
  ops: readonly FileOp[],
  k: number,
  seen: string,
  ctrl: string,
): ScriptedTurn {
  return {
    tool_calls: [
      seeCall(seen),
      ...ops.slice(0, k).map(toolCall),
      { tool: "bash", args: { command: "mark" }, bash: `echo agent > "${path.join(ctrl, "hung")}"` },
    ],
    hang: true,
  };
}

/** The planner's turn; with `planFile` (an absolute path) it writes the plan there and names it. */
export function plannerTurn(planFile?: string): ScriptedTurn {
  if (planFile === undefined) return { reply: envelopeJson({ summary: "the plan" }) };
  return {
    tool_calls: [{ tool: "write", write_file: { path: planFile, content: "# the plan\n" } }],
    reply: envelopeJson({ summary: "the plan", artifacts: [planFile] }),
  };
}
