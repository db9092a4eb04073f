import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { openTraceStore } from "../../src/trace/open-store.js";
import type { TraceStore } from "../../src/trace/store.js";
import { isPostgresUrl, traceMayExist } from "../../src/trace/trace-location.js";
import { defaultPrompts } from "../../src/workflows/prompts/default-prompts.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { type CliResult, cliPath, collect, Sandbox } from "../helpers/sandbox.js";
import { THREE } from "../resume/resume-world.js";
import { GIT_ENV, git } from "../worktree/worktree-world.js";
import { ExitedEarly, freePort, Proc, QUIET_ENV, RestateServer, until } from "./restate-server.js";

export { freePort, Proc, RestateServer, sharedRestate } from "./restate-server.js";

type PhaseStatus = { name: string; status: string; replayed_at: string | null };
const PHASES_SQL = "SELECT name, status, replayed_at FROM phases WHERE adw_id = ? ORDER BY number";
const phaseStatus = (p: PhaseStatus) => `${p.name}:${p.status}${p.replayed_at === null ? "" : "+r"}`;

const ASK = `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "gate",
  description: "An agent, then the engineer's approval",
  agents: ["first"],
  async run(run, request) {
    const one = await run.agent("one", { owner: "first", description: "First" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    const answer = await run.engineer("approve", { description: "Approve" }, (phase) => phase.ask("ship " + one.summary + "?"));
    return run.finish({ accepted: answer.approved, reason: answer.reason || "approved" });
  },
});
`;

/**
 * The user.md `sssf init` writes: it renders `{{context_handoff_dir}}`, an absolute path under the
 * worker's own folder, so a failover between workers of other work-dirs replays it only when the
 * replay key names that folder instead of spelling it.
 */
export const INIT_USER = defaultPrompts("builder").user;

/**
 * Agents outside the sandbox: boxed by bwrap they see their context_handoff_dir as /sssf/context_handoff
 * wherever it is; unboxed (sandbox.mode: off, macOS, a machine without bwrap) the prompt spells the
 * worker's own folder, the case a failover must replay all the same.
 */
export const UNBOXED = {
  first: { sandbox: { mode: "off" } },
  second: { sandbox: { mode: "off" } },
  third: { sandbox: { mode: "off" } },
};

/**
 * A repository pushed to a bare remote, with the workflows `three` and `gate` and scripted agents
 * `first`, `second`, `third`; a Restate server, an sssf pool and workers, each with its own clone, all
 * sharing one SQLite trace.
 */
export class ClusterWorld {
  readonly sb = new Sandbox();
  readonly dir = this.sb.dir;
  readonly scratch = mkdtempSync(path.join(tmpdir(), "sssf-cluster-"));
  readonly remote = path.join(this.scratch, "remote.git");
  /** The shared trace: a SQLite file here, or the PostgreSQL URL the constructor was given. */
  readonly dbPath: string;
  readonly restate: RestateServer;
  /** False when the file shares one server ({@link sharedRestate}): cleanup then leaves it running. */
  readonly #ownsRestate: boolean;
  pool: Proc | null = null;
  poolUrl = "";
  readonly workers: Proc[] = [];
  readonly workerEnv: Record<string, string>;

  constructor(
    turns: { first: ScriptedTurn[]; second: ScriptedTurn[]; third: ScriptedTurn[] },
    options: {
      trace?: string;
      /** Top-level config sections (limits…) next to the roster. */
      config?: Record<string, unknown>;
      /** Per agent, fields added to its roster entry (writes…). */
      agents?: Partial<Record<"first" | "second" | "third", Record<string, unknown>>>;
      /** The file's shared server ({@link sharedRestate}); a world of its own starts one otherwise. */
      restate?: RestateServer;
      /** Set in the workers' environment only (`SSSF_WORKER_TREE_PROBE`…). */
      workerEnv?: Record<string, string>;
    } = {},
  ) {
    this.workerEnv = options.workerEnv ?? {};
    this.restate = options.restate ?? new RestateServer();
    this.#ownsRestate = options.restate === undefined;
    this.dbPath = options.trace ?? path.join(this.scratch, "trace.db");
    mkdirSync(path.join(this.dir, "adws"), { recursive: true });
    writeFileSync(path.join(this.dir, "adws/adw_three.ts"), THREE);
    writeFileSync(path.join(this.dir, "adws/adw_gate.ts"), ASK);
    writeFileSync(
      path.join(this.dir, ".gitignore"),
      "adws/adw_data/sessions/\nadws/adw_data/.worktrees/\nadws/adw_data/*.db*\n",
    );
    writeFileSync(path.join(this.dir, "check.mjs"), 'console.log("ok 1");\n');
    this.sb.setup(
      [
        { name: "first", turns: turns.first, userPrompt: INIT_USER, extra: options.agents?.first },
        { name: "second", turns: turns.second, userPrompt: INIT_USER, extra: options.agents?.second },
        { name: "third", turns: turns.third, userPrompt: INIT_USER, extra: options.agents?.third },
      ],
      { quality: { test: { command: ["node", "check.mjs"], timeout_seconds: 60 } }, ...options.config },
    );
    git(this.dir, ["init", "-q", "-b", "main"]);
    git(this.dir, ["add", "-A"]);
    git(this.dir, ["commit", "-q", "-m", "initial"]);
    git(this.scratch, ["clone", "-q", "--bare", this.dir, this.remote]);
    git(this.dir, ["remote", "add", "origin", this.remote]);
  }

  /** Writes `files` (repo-relative path → text) in the operator's checkout, commits and pushes them. */
  commitAndPush(files: Record<string, string>): void {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(this.dir, file)), { recursive: true });
      writeFileSync(path.join(this.dir, file), text);
    }
    git(this.dir, ["add", "-A"]);
    git(this.dir, ["commit", "-q", "-m", "test setup"]);
    git(this.dir, ["push", "-q", "origin", "main"]);
  }

  /** What every cluster process of the test gets. */
  env(): Record<string, string> {
    return {
      ...GIT_ENV,
      ...QUIET_ENV,
      NO_COLOR: "1",
      SSSF_DB: this.dbPath,
      SSSF_RESTATE_INGRESS: this.restate.ingress,
      SSSF_RESTATE_ADMIN: this.restate.admin,
      SSSF_POOL: this.poolUrl,
    };
  }

  private spawnCli(name: string, args: string[], cwd = this.dir, env: Record<string, string> = {}): Proc {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd,
      env: { ...process.env, ...this.env(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new Proc(name, child);
  }

  /** Restate, the pool and `workers` workers, each in its own folder, all live in the pool. */
  async start(workers: number, slots = 2): Promise<void> {
    // A shared server is up already (unless a test of the file killed it and did not restart it).
    if (this.restate.proc?.alive !== true) await this.restate.start();
    // Like restate-server's, the pool's port may be taken before it binds it: a fresh one then.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      this.poolUrl = `http://127.0.0.1:${port}`;
      const pool = this.spawnCli("pool", ["pool", "--listen", `127.0.0.1:${port}`], this.scratch);
      this.pool = pool;
      try {
        await until("the pool", async () => (await fetch(`${this.poolUrl}/pool/workers`)).ok, 120_000, pool);
        break;
      } catch (error) {
        if (!(error instanceof ExitedEarly) || attempt === 3) throw error;
      }
    }
    for (let i = 0; i < workers; i++) await this.addWorker(slots);
    await this.waitForWorkers();
  }

  /** kill -9 of the pool, then a new one on the same address (the workers beat to it again). */
  async restartPool(): Promise<void> {
    await this.pool?.kill("SIGKILL");
    const port = new URL(this.poolUrl).port;
    const pool = this.spawnCli("pool", ["pool", "--listen", `127.0.0.1:${port}`], this.scratch);
    this.pool = pool;
    await until(
      "the restarted pool",
      async () => (await fetch(`${this.poolUrl}/pool/workers`)).ok,
      120_000,
      pool,
    );
    await this.waitForWorkers();
  }

  private async waitForWorkers(): Promise<void> {
    // A worker that dies on its way in is said at once, with what it printed.
    const workers = this.workers.filter((w) => w.alive);
    await until(
      `${workers.length} live workers`,
      async () => (await this.liveWorkers()).length === workers.length,
      120_000,
      workers,
    );
  }

  async addWorker(slots = 2): Promise<Proc> {
    const n = this.workers.length + 1;
    const workDir = path.join(this.scratch, `worker-${n}`);
    const worker = this.spawnCli(
      `worker-${n}`,
      ["worker", "--remote", this.remote, "--work-dir", workDir, "--slots", String(slots)],
      this.scratch,
      this.workerEnv,
    );
    this.workers.push(worker);
    return worker;
  }

  async liveWorkers(): Promise<{ id: string; pid: number; runs: { adw_id: string }[] }[]> {
    const reply = await fetch(`${this.poolUrl}/pool/workers`);
    const { workers } = (await reply.json()) as {
      workers: { id: string; pid: number; live: boolean; runs: { adw_id: string }[] }[];
    };
    return workers.filter((w) => w.live);
  }

  /** The worker process running `adwId` right now, once one does. */
  async workerRunning(adwId: string, ms = 120_000): Promise<Proc> {
    let found: Proc | undefined;
    await until(
      `a worker running ${adwId}`,
      async () => {
        const live = await this.liveWorkers();
        const entry = live.find((w) => w.runs.some((r) => r.adw_id === adwId));
        found = entry === undefined ? undefined : this.workers.find((w) => w.child.pid === entry.pid);
        return found !== undefined;
      },
      ms,
    );
    return found as Proc;
  }

  /** `sssf <args>` in the operator's checkout, to its end. */
  cli(args: string[]): Promise<CliResult> {
    return this.cliIn(this.dir, args);
  }

  /** `sssf <args>` in the operator's checkout with `env` over the cluster's, to its end. */
  cliWith(env: Record<string, string>, args: string[]): Promise<CliResult> {
    return this.cliIn(this.dir, args, env);
  }

  /** `sssf <args>` in `cwd` (another machine's checkout), to its end. */
  cliIn(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd,
      env: { ...process.env, ...this.env(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return collect(child);
  }

  /**
   * Rows of the shared SQLite trace (none before a worker created it), read as plain rows. A
   * PostgreSQL trace is read with {@link rows}.
   */
  query<T>(sql: string, ...params: unknown[]): T[] {
    if (isPostgresUrl(this.dbPath)) throw new Error("a PostgreSQL trace is read with rows()");
    if (!traceMayExist(this.dbPath, existsSync)) return [];
    const db = openRawSqlite(this.dbPath, { readonly: true });
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  }

  /** Rows of the shared trace, SQLite or PostgreSQL (none before a worker created it). */
  async rows<T>(sql: string, ...params: unknown[]): Promise<T[]> {
    if (!isPostgresUrl(this.dbPath)) return this.query<T>(sql, ...params);
    let store: TraceStore;
    try {
      store = await openTraceStore(this.dbPath, { readonly: true });
    } catch (error) {
      // A PostgreSQL trace no worker has written to yet.
      if (/holds no sssf trace yet/.test(String(error))) return [];
      throw error;
    }
    try {
      return await store.all<T>(sql, params);
    } finally {
      await store.close();
    }
  }

  /** `name:status` of every phase row of the SQLite trace, by number, `+r` when replayed. */
  phases(adwId: string): string[] {
    return this.query<PhaseStatus>(PHASES_SQL, adwId).map(phaseStatus);
  }

  /** {@link phases} of a trace SQLite or PostgreSQL. */
  async tracePhases(adwId: string): Promise<string[]> {
    return (await this.rows<PhaseStatus>(PHASES_SQL, adwId)).map(phaseStatus);
  }

  sends(agent: string): number {
    return this.sb.agent(agent).sends().length;
  }

  /** Everything the cluster's processes printed, for a failing test's message. */
  logs(): string {
    return [this.pool, ...this.workers, this.restate.proc]
      .filter((p) => p !== null)
      .map((p) => `--- ${p?.name}\n${p?.out.slice(-4000)}`)
      .join("\n");
  }

  async cleanup(): Promise<void> {
    await Promise.all([...this.workers, this.pool].map((p) => p?.kill("SIGKILL")));
    if (this.#ownsRestate) {
      await this.restate.stop("SIGKILL");
      this.restate.cleanup();
    } else await this.restate.killUnfinished();
    this.sb.cleanup();
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

/**
 * Polls `check` every 100 ms until it holds; after `ms` throws, with what `said()` returns (the
 * cluster's logs) so a timeout shows what the processes were doing.
 */
export async function pollUntil(
  check: () => boolean | Promise<boolean>,
  said: () => string = () => "",
  ms = 120_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out; the cluster said:\n${said()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
