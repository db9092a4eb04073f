/**
 * The executor contract suite, after the runtime contract (test/runtimes/runtime-contract.ts): one
 * function registers the same workflow cases against whatever executes a run — the local durable run
 * (`sssf run`) or the Restate cluster (`sssf run --engine restate`, real restate-server, real pool and
 * worker processes). Each case drives the real CLI against one repository (workflows `three` and
 * `gate`, scripted agents `first`, `second`, `third`) and reads the run back from the one trace both
 * write. Where the two genuinely differ, the executor states a capability and the case says so.
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { ClusterWorld, type RestateServer } from "../cluster/cluster-world.js";
import { type CliResult, cliPath, collect, envelopeJson } from "../helpers/sandbox.js";
import { waitFor } from "../helpers/wait.js";
import { replyTurn, writeTurn } from "../resume/resume-world.js";
import { git } from "../worktree/worktree-world.js";

type Turns = { first: ScriptedTurn[]; second: ScriptedTurn[]; third: ScriptedTurn[] };
type WorldOptions = NonNullable<ConstructorParameters<typeof ClusterWorld>[1]>;

/** What one executor can do that the other cannot; each flag names the case it turns off. */
export interface ExecutorCapabilities {
  /**
   * `sssf kill <adw_id>` stops a live run and closes its session. Local only: a cluster run's sssf is
   * a worker serving other runs too, and a run Restate holds is retried, not cancelled.
   */
  kill: boolean;
}

/** How the contract makes one executor run a workflow. */
export interface Executor {
  readonly capabilities: ExecutorCapabilities;
  /** A repository (and, for a cluster, its remote and shared server) for one case. */
  world(turns: Turns, options?: WorldOptions): ClusterWorld;
  /** Brings up what executes runs: nothing locally; Restate's pool and `workers` workers on a cluster. */
  start(world: ClusterWorld, workers: number): Promise<void>;
  /** The `sssf run` flags that hand the run to this executor. */
  readonly runFlags: readonly string[];
  /** The repository the run's branch ends up in: the checkout (local) or the remote (cluster). */
  branchRepo(world: ClusterWorld): string;
  /**
   * Kills what runs `adwId` with SIGKILL while its second agent works (`running` is its `sssf run`),
   * then lets it come back the executor's way (`sssf resume`, or Restate's failover); resolves once
   * the run ended.
   */
  crash(world: ClusterWorld, adwId: string, running: RunningCli): Promise<void>;
}

/** A `sssf` process the case may kill before it ends. */
export interface RunningCli {
  kill(signal: NodeJS.Signals): void;
  done: Promise<CliResult>;
}

/** `sssf <args>` in the world's checkout with the world's environment, not awaited. */
export function startCli(world: ClusterWorld, args: string[]): RunningCli {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: world.dir,
    env: { ...process.env, ...world.env() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { kill: (signal) => child.kill(signal), done: collect(child) };
}

/** Ends every process group the trace still lists as running (what a SIGKILLed sssf leaves). */
export function endLeftovers(world: ClusterWorld, adwId: string): void {
  const rows = world.query<{ pid: number }>(
    "SELECT pid FROM processes WHERE adw_id = ? AND status = 'running'",
    adwId,
  );
  for (const row of rows) {
    try {
      process.kill(-row.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

const ALL_SUCCESS = ["one:success", "two:success", "commit:success", "test:success", "three:success"];
const session = (world: ClusterWorld, adwId: string) =>
  world.query<{ status: string; accepted: number | null }>(
    "SELECT status, accepted FROM sessions WHERE adw_id = ?",
    adwId,
  )[0];

/** Commits on the run's branch beyond main, oldest first, in the repository the executor pushes to. */
function branchCommits(executor: Executor, world: ClusterWorld, adwId: string): string[] {
  const [row] = world.query<{ branch: string | null }>("SELECT branch FROM sessions WHERE adw_id = ?", adwId);
  const log = git(executor.branchRepo(world), ["log", "--format=%s", "--reverse", `main..${row?.branch}`]);
  return log.trim().split("\n").filter(Boolean);
}

/** Registers the shared cases for one executor (`describe`/`it` of the calling file). */
export function describeExecutorContract(name: string, makeExecutor: () => Executor): void {
  describe(`executor contract: ${name}`, () => {
    // A cluster starts several processes: on a loaded 2-core machine that takes its time.
    vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
    const executor = makeExecutor();
    let world: ClusterWorld | undefined;
    afterEach(async () => {
      await world?.cleanup();
      world = undefined;
    });
    const open = async (turns: Turns, options?: WorldOptions, workers = 1) => {
      world = executor.world(turns, options);
      await executor.start(world, workers);
      return world;
    };
    const run = (w: ClusterWorld, args: string[]) => w.cli(["run", ...args, ...executor.runFlags]);

    it("a multi-phase run succeeds: every phase once, its commit on the run's branch, its trace", async () => {
      const w = await open({
        first: [replyTurn("planned")],
        second: [writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      });
      const result = await run(w, ["three", "add a feature", "--adw-id", "c0c0c0c1"]);
      expect(result.code, `${result.stdout}\n${result.stderr}\n${w.logs()}`).toBe(0);
      expect(w.phases("c0c0c0c1")).toEqual(ALL_SUCCESS);
      expect(session(w, "c0c0c0c1")).toEqual({ status: "success", accepted: 1 });
      expect(branchCommits(executor, w, "c0c0c0c1")).toEqual(["Resume test: built"]);
      expect([w.sends("first"), w.sends("second"), w.sends("third")]).toEqual([1, 1, 1]);
      // Each agent was handed the envelope of the one before it.
      expect(w.sb.agent("second").sends()[0]?.prompt).toContain("planned");
      expect(w.query("SELECT id FROM phases WHERE adw_id = ? AND status = 'running'", "c0c0c0c1")).toEqual(
        [],
      );
    });

    it("a phase that fails ends the run not accepted, exit 1, the phases before it kept", async () => {
      const w = await open(
        {
          first: [replyTurn("planned")],
          second: [{ no_result: true, exit_code: 3, stderr: "boom\n" }],
          third: [],
        },
        { config: { limits: { retries: 0 } } },
      );
      const result = await run(w, ["three", "add a feature", "--adw-id", "c0c0c0c2"]);
      expect(result.code, `${result.stdout}\n${result.stderr}\n${w.logs()}`).toBe(1);
      expect(w.phases("c0c0c0c2")).toEqual(["one:success", "two:fail"]);
      expect(session(w, "c0c0c0c2")).toMatchObject({ status: "fail" });
      expect(session(w, "c0c0c0c2")?.accepted).not.toBe(1);
      expect(w.sends("third")).toBe(0);
    });

    it("an invalid envelope is corrected in the same agent session, and the phase succeeds", async () => {
      const w = await open({
        first: [{ reply: "I planned it, no JSON here" }, replyTurn("planned")],
        second: [writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      });
      const result = await run(w, ["three", "add a feature", "--adw-id", "c0c0c0c3"]);
      expect(result.code, `${result.stdout}\n${result.stderr}\n${w.logs()}`).toBe(0);
      expect(w.phases("c0c0c0c3")).toEqual(ALL_SUCCESS);
      const sends = w.sb.agent("first").sends();
      expect(sends.map((s) => s.resume)).toEqual([false, true]);
      expect(sends[1]?.session_id).toBe(sends[0]?.session_id);
      const envelopes = w.query<{ attempt: number; reason: string; valid: number }>(
        "SELECT e.attempt, e.reason, e.valid FROM envelopes e JOIN phases p ON p.id = e.phase_id WHERE e.adw_id = ? AND p.name = 'one' ORDER BY e.attempt",
        "c0c0c0c3",
      );
      expect(envelopes).toEqual([
        { attempt: 1, reason: "initial", valid: 0 },
        { attempt: 2, reason: "json_fix", valid: 1 },
      ]);
    });

    it("an engineer phase waits for `sssf approve` from the checkout, then the run ends accepted", async () => {
      const w = await open({ first: [replyTurn("the plan")], second: [], third: [] });
      const running = run(w, ["gate", "ship it", "--adw-id", "c0c0c0c4"]);
      const asked = () => {
        try {
          return w.query(
            "SELECT 1 FROM events WHERE adw_id = ? AND name LIKE 'waiting for approval:%'",
            "c0c0c0c4",
          );
        } catch {
          // The trace file exists before its tables do.
          return [];
        }
      };
      await waitFor(() => asked().length === 1, 120_000, "the approval question");
      const approved = await w.cli(["approve", "c0c0c0c4"]);
      expect(approved.code, approved.stderr).toBe(0);
      const result = await running;
      expect(result.code, `${result.stdout}\n${result.stderr}\n${w.logs()}`).toBe(0);
      expect(w.phases("c0c0c0c4")).toEqual(["one:success", "approve:success"]);
      expect(session(w, "c0c0c0c4")).toEqual({ status: "success", accepted: 1 });
      // A second answer to the same question is refused.
      const again = await w.cli(["reject", "c0c0c0c4", "--reason", "late"]);
      expect(again.code).toBe(2);
    });

    it("a crash mid-phase comes back and lands exactly once: no phase, step or commit twice", async () => {
      const w = await open(
        {
          first: [writeTurn("notes.md", "planned")],
          // The first attempt's build waits until what runs it is killed; the next one builds.
          second: [{ delay_ms: 120_000, reply: "{}" }, writeTurn("src/feature.js", "built")],
          third: [replyTurn("reviewed")],
        },
        {},
        2,
      );
      const adwId = "c0c0c0c5";
      const running = startCli(w, ["run", "three", "add a feature", "--adw-id", adwId, ...executor.runFlags]);
      await waitFor(() => w.sends("second") === 1, 120_000, "the second agent's first send");
      await executor.crash(w, adwId, running);
      expect(session(w, adwId)).toEqual({ status: "success", accepted: 1 });
      expect(w.phases(adwId), w.logs()).toEqual([
        "one:success+r",
        "two:interrupted",
        "two:success",
        "commit:success",
        "test:success",
        "three:success",
      ]);
      expect([w.sends("first"), w.sends("second"), w.sends("third")]).toEqual([1, 2, 1]);
      expect(branchCommits(executor, w, adwId)).toEqual(["Resume test: built"]);
      // What the first attempt left uncommitted reached the commit of the attempt that finished.
      expect(git(executor.branchRepo(w), ["show", `sssf/three/${adwId}:notes.md`])).toBe("planned\n");
      // Every step of work ran live once (each attempt journals its own start and checkpoints); the
      // later attempt replayed the first phase's.
      const twice = w.query(
        "SELECT key FROM steps WHERE adw_id = ? AND replayed = 0 AND op NOT IN ('start', 'checkpoint') GROUP BY key HAVING count(*) > 1",
        adwId,
      );
      expect(twice).toEqual([]);
      expect(
        w.query<{ key: string }>(
          "SELECT key FROM steps WHERE adw_id = ? AND replayed = 1 ORDER BY key",
          adwId,
        ),
      ).toEqual([{ key: "p1.one.call#1" }, { key: "p1.one.phase#1" }]);
      expect(w.query("SELECT id FROM processes WHERE adw_id = ? AND status = 'running'", adwId)).toEqual([]);
    });

    it.skipIf(!executor.capabilities.kill)(
      "`sssf kill` stops a live run: its agent ended, its session closed, not accepted",
      async () => {
        const w = await open({ first: [{ hang: true }], second: [], third: [] });
        const running = startCli(w, ["run", "three", "x", "--adw-id", "c0c0c0c6", ...executor.runFlags]);
        await waitFor(() => w.sends("first") === 1, 120_000, "the first agent's send");
        const killed = await w.cli(["kill", "c0c0c0c6"]);
        expect(killed.code, killed.stderr).toBe(0);
        expect(killed.stdout).toMatch(/sent SIGTERM to sssf .* running c0c0c0c6/);
        const ended = await running.done;
        expect(ended.code).not.toBe(0);
        expect(session(w, "c0c0c0c6")?.status).not.toBe("running");
        expect(session(w, "c0c0c0c6")?.accepted).not.toBe(1);
        expect(
          w.query("SELECT id FROM processes WHERE adw_id = ? AND status = 'running'", "c0c0c0c6"),
        ).toEqual([]);
        expect(w.sends("second")).toBe(0);
      },
    );

    it("the run's budget stops it with the same error and exit", async () => {
      const costly = (summary: string): ScriptedTurn => ({
        reply: envelopeJson({ summary }),
        usage: { input_tokens: 100, cost: 0.3 },
      });
      const w = await open(
        { first: [costly("planned")], second: [costly("built")], third: [replyTurn("reviewed")] },
        { config: { limits: { max_cost_usd: 0.5 } } },
      );
      const result = await run(w, ["three", "add a feature", "--adw-id", "c0c0c0c7"]);
      expect(result.code, `${result.stdout}\n${result.stderr}\n${w.logs()}`).toBe(1);
      const errors = w.query<{ name: string }>(
        "SELECT name FROM events WHERE adw_id = ? AND type = 'error'",
        "c0c0c0c7",
      );
      expect(errors.map((e) => e.name).join("\n")).toMatch(/budget exceeded: run max_cost_usd 0\.50/);
      expect(w.sends("third")).toBe(0);
      expect(session(w, "c0c0c0c7")?.accepted).not.toBe(1);
    });
  });
}

/** The local durable run: `sssf run` in the checkout, `sssf resume` after a crash. */
export function localExecutor(): Executor {
  return {
    capabilities: { kill: true },
    world: (turns, options) => new ClusterWorld(turns, options),
    start: async () => undefined,
    runFlags: [],
    branchRepo: (world) => world.dir,
    async crash(world, adwId, running) {
      running.kill("SIGKILL");
      await running.done;
      endLeftovers(world, adwId);
      const resumed = await world.cli(["resume", adwId]);
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    },
  };
}

/** The Restate cluster: `sssf run --engine restate`; a crash is a worker's kill -9, and failover. */
export function restateExecutor(restate: RestateServer): Executor {
  return {
    capabilities: { kill: false },
    world: (turns, options) => new ClusterWorld(turns, { ...options, restate }),
    start: (world, workers) => world.start(workers),
    runFlags: ["--engine", "restate"],
    branchRepo: (world) => world.remote,
    async crash(world, adwId, running) {
      await (await world.workerRunning(adwId)).kill("SIGKILL");
      // The submitting CLI follows the run through the failover to its end.
      const followed = await running.done;
      expect(followed.code, `${followed.stdout}\n${followed.stderr}\n${world.logs()}`).toBe(0);
    },
  };
}
