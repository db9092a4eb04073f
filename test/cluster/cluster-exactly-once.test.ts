import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { replyTurn, writeTurn } from "../resume/resume-world.js";
import { git } from "../worktree/worktree-world.js";
import { ClusterWorld, pollUntil, sharedRestate, UNBOXED } from "./cluster-world.js";

// Exactly once on a cluster whose workers have folders of their own, with the prompts `sssf init`
// writes (ClusterWorld's user.md renders {{context_handoff_dir}}, a path under each worker's folder).
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
const restate = sharedRestate();
let world: ClusterWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const waitFor = (check: () => boolean | Promise<boolean>, ms?: number) =>
  pollUntil(check, () => world?.logs() ?? "", ms);

const succeeded = (adwId: string) => () =>
  world?.query("SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'", adwId).length === 1;

/**
 * The trace against what ran: the agent calls the journal holds as made live (not replayed), by phase.
 * Each must be one request its agent got; a replayed phase's call is journaled again as replayed.
 */
function liveCalls(w: ClusterWorld, adwId: string): Record<string, number> {
  const rows = w.query<{ key: string; n: number }>(
    "SELECT key, count(*) AS n FROM steps WHERE adw_id = ? AND op = 'call' AND replayed = 0 GROUP BY key",
    adwId,
  );
  return Object.fromEntries(rows.map((row) => [row.key, Number(row.n)]));
}

/** The worker folder (`worker-<n>`) a prompt's context_handoff_dir is under. */
const handoffWorker = (prompt: string, adwId: string) =>
  new RegExp(`/(worker-\\d+)/sessions/${adwId}/context_handoff`).exec(prompt)?.[1];

describe("kill -9 of a worker in a code phase", () => {
  it("the next worker (another work-dir) replays every completed phase: one commit on the remote, no agent asked again", async () => {
    world = new ClusterWorld(
      {
        first: [writeTurn("notes.md", "planned")],
        second: [writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      { restate, agents: UNBOXED },
    );
    // The suite hangs the first time it runs (the worker is killed in it), and passes after.
    const runs = path.join(world.scratch, "suite-runs.log");
    world.commitAndPush({
      "check.mjs": `import { appendFileSync, existsSync } from "node:fs";
const first = !existsSync(${JSON.stringify(runs)});
appendFileSync(${JSON.stringify(runs)}, process.cwd() + "\\n");
if (first) await new Promise((resolve) => setTimeout(resolve, 50_000));
console.log("ok 1");
`,
    });
    await world.start(2);
    const adwId = "code-kill";
    const submitted = await world.cli([
      "run",
      "three",
      "add a feature",
      "--engine",
      "restate",
      "--adw-id",
      adwId,
      "--detach",
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const first = await world.workerRunning(adwId);
    await waitFor(() => existsSync(runs));
    await first.kill("SIGKILL");
    await waitFor(succeeded(adwId));
    expect(world.phases(adwId), world.logs()).toEqual([
      "one:success+r",
      "two:success+r",
      "commit:success+r",
      "test:interrupted",
      "test:success",
      "three:success",
    ]);
    // What ran, compared with the trace: each agent asked once, by its one live phase.
    expect([world.sends("first"), world.sends("second"), world.sends("third")]).toEqual([1, 1, 1]);
    expect(liveCalls(world, adwId)).toEqual({ "p1.one.call#1": 1, "p2.two.call#1": 1, "p5.three.call#1": 1 });
    // The two attempts ran in two workers' folders: the prompts named different context_handoff_dirs.
    const killed = `worker-${world.workers.indexOf(first) + 1}`;
    expect(handoffWorker(world.sb.agent("first").sends()[0]?.prompt ?? "", adwId)).toBe(killed);
    const third = handoffWorker(world.sb.agent("third").sends()[0]?.prompt ?? "", adwId);
    expect(third).toMatch(/^worker-\d+$/);
    expect(third).not.toBe(killed);
    // The pool saw the killed worker's connection break: its lease was taken at once, not after its expiry.
    const survivor = world.workers.find((w) => w !== first);
    expect(survivor?.out).toMatch(
      new RegExp(`run ${adwId}: takes the lease of worker \\S+ \\(the pool saw it die\\)`),
    );
    expect(survivor?.out).not.toMatch(/holds its lease/);
    const suiteRuns = readFileSync(runs, "utf8").trim().split("\n");
    expect(suiteRuns).toHaveLength(2);
    expect(suiteRuns[0]).toContain(`/${killed}/`);
    expect(suiteRuns[1]).not.toContain(`/${killed}/`);
    // The commit, once: the remote's branch has exactly one commit of the run's.
    const branch = `sssf/three/${adwId}`;
    expect(
      git(world.remote, ["log", "--format=%s", `main..${branch}`])
        .trim()
        .split("\n"),
    ).toEqual(["Resume test: built"]);
    expect(git(world.remote, ["show", `${branch}:notes.md`])).toBe("planned\n");
    // The journal says the same: one live commit step; the replayed ones are the takeover's.
    const commits = world.query<{ replayed: number }>(
      "SELECT replayed FROM steps WHERE adw_id = ? AND op = 'commit' ORDER BY attempt",
      adwId,
    );
    expect(commits.map((step) => Number(step.replayed))).toEqual([0, 1]);
  });
});

// A plan, a build, their commit, then the engineer's approval before the review.
const SHIP = `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "ship",
  description: "Build and commit, then the engineer approves the review",
  agents: ["first", "second", "third"],
  async run(run, request) {
    const one = await run.agent("one", { owner: "first", description: "Plan" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    const two = await run.agent("two", { owner: "second", description: "Build" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "build: " + one.summary }));
    await run.code("commit", { owner: "git", description: "Commit" }, (phase) => phase.commit("Ship: " + two.summary));
    const answer = await run.engineer("approve", { description: "Approve" }, (phase) => phase.ask("ship " + two.summary + "?"));
    if (!answer.approved) return run.finish({ accepted: false, reason: answer.reason || "rejected" });
    const three = await run.agent("three", { owner: "third", description: "Review" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "review the approved build" }));
    return run.finish({ accepted: three.status === "success", reason: three.summary });
  },
});
`;

describe("kill -9 of a worker in an engineer phase", () => {
  it("the next worker (another work-dir) waits for the same approval without re-running a phase; sssf approve from another checkout lands it once", async () => {
    world = new ClusterWorld(
      {
        first: [writeTurn("notes.md", "planned")],
        second: [writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      { restate, agents: UNBOXED },
    );
    world.commitAndPush({ "adws/adw_ship.ts": SHIP });
    await world.start(2);
    const adwId = "ask-kill";
    const submitted = await world.cli([
      "run",
      "ship",
      "add a feature",
      "--engine",
      "restate",
      "--adw-id",
      adwId,
      "--detach",
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const waiting = () =>
      world?.query<{ name: string }>(
        "SELECT name FROM events WHERE adw_id = ? AND name LIKE 'waiting for approval:%' ORDER BY started_at",
        adwId,
      ) ?? [];
    await waitFor(() => waiting().length === 1);
    const first = await world.workerRunning(adwId);
    const branch = `sssf/ship/${adwId}`;
    const remoteLog = () =>
      git(world?.remote ?? "", ["log", "--format=%s", `main..${branch}`])
        .trim()
        .split("\n");
    // The commit is on the remote before the engineer is asked (a commit phase pushes its branch).
    expect(remoteLog()).toEqual(["Ship: built"]);
    await first.kill("SIGKILL");

    // Taken over: the new worker replays the three completed phases and asks the same question again.
    await waitFor(() => waiting().length === 2);
    expect(waiting().map((row) => row.name)).toEqual([
      "waiting for approval: ship built?",
      "waiting for approval: ship built?",
    ]);
    const second = await world.workerRunning(adwId);
    expect(second).not.toBe(first);
    expect(world.phases(adwId), world.logs()).toEqual([
      "one:success+r",
      "two:success+r",
      "commit:success+r",
      "approve:interrupted",
      "approve:running",
    ]);
    expect(world.query("SELECT status FROM sessions WHERE adw_id = ?", adwId)).toEqual([
      { status: "running" },
    ]);
    expect([world.sends("first"), world.sends("second"), world.sends("third")]).toEqual([1, 1, 0]);
    expect(remoteLog()).toEqual(["Ship: built"]);
    expect(second.out).toMatch(
      new RegExp(`run ${adwId}: takes the lease of worker \\S+ \\(the pool saw it die\\)`),
    );

    const elsewhere = path.join(world.scratch, "laptop");
    git(world.scratch, ["clone", "-q", world.remote, elsewhere]);
    const approved = await world.cliIn(elsewhere, ["approve", adwId]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(/approved phase \d+ approve of session \S+ as \S+@\S+/);
    await waitFor(succeeded(adwId));

    // The trace against what ran: each agent asked once, by its one live phase.
    expect(world.phases(adwId), world.logs()).toEqual([
      "one:success+r",
      "two:success+r",
      "commit:success+r",
      "approve:interrupted",
      "approve:success",
      "three:success",
    ]);
    expect([world.sends("first"), world.sends("second"), world.sends("third")]).toEqual([1, 1, 1]);
    expect(liveCalls(world, adwId)).toEqual({ "p1.one.call#1": 1, "p2.two.call#1": 1, "p5.three.call#1": 1 });
    // One answer, journaled by the worker that took the run over; the commit once, live, then replayed.
    const steps = (op: string) =>
      world
        ?.query<{ attempt: number; replayed: number }>(
          "SELECT attempt, replayed FROM steps WHERE adw_id = ? AND op = ? ORDER BY attempt",
          adwId,
          op,
        )
        .map((step) => [Number(step.attempt), Number(step.replayed)]);
    expect(steps("commit")).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(steps("ask")).toEqual([[2, 0]]);
    // The two attempts ran in two workers' folders: the prompts named different context_handoff_dirs.
    const killed = `worker-${world.workers.indexOf(first) + 1}`;
    const survivor = `worker-${world.workers.indexOf(second) + 1}`;
    expect(handoffWorker(world.sb.agent("first").sends()[0]?.prompt ?? "", adwId)).toBe(killed);
    expect(handoffWorker(world.sb.agent("third").sends()[0]?.prompt ?? "", adwId)).toBe(survivor);
    // The remote: the one commit on the branch, its files, no wip ref left.
    expect(remoteLog()).toEqual(["Ship: built"]);
    expect(git(world.remote, ["show", `${branch}:notes.md`])).toBe("planned\n");
    expect(git(world.remote, ["show", `${branch}:src/feature.js`])).toBe("built\n");
    expect(git(world.remote, ["for-each-ref", "refs/sssf/"]).trim()).toBe("");
  });
});

describe("a pool restart mid-phase", () => {
  it("never hands the live run to a second worker: the phase runs once; resubmitting the id with another request is refused", async () => {
    world = new ClusterWorld(
      {
        first: [replyTurn("planned")],
        // Long enough for the pool to die and come back while the worker waits on it.
        second: [{ ...writeTurn("src/feature.js", "built"), delay_ms: 20_000 }],
        third: [replyTurn("reviewed")],
      },
      { restate },
    );
    // One slot each: the retry Restate sends after the restart goes to the worker that does not hold
    // the run (the holder beats that its slot is taken), which must wait for the holder's lease.
    await world.start(2, 1);
    // An id of the operator's, not a minted one: the cluster takes every id a local run takes.
    const adwId = "feature_x-1";
    const follow = world.cli(["run", "three", "add a feature", "--engine", "restate", "--adw-id", adwId]);
    const holder = await world.workerRunning(adwId);
    await waitFor(() => world?.sends("second") === 1);
    await world.restartPool();
    await waitFor(succeeded(adwId));
    const phases = ["one:success", "two:success", "commit:success", "test:success", "three:success"];
    expect(world.phases(adwId), world.logs()).toEqual(phases);
    expect([world.sends("first"), world.sends("second"), world.sends("third")]).toEqual([1, 1, 1]);
    expect(liveCalls(world, adwId)).toEqual({ "p1.one.call#1": 1, "p2.two.call#1": 1, "p5.three.call#1": 1 });
    // One attempt, on the worker that started it.
    const owners = world.query<{ pid: number }>("SELECT pid FROM sessions WHERE adw_id = ?", adwId);
    expect(owners.map((row) => Number(row.pid))).toEqual([holder.child.pid]);
    expect(
      world.query("SELECT 1 FROM events WHERE adw_id = ? AND name LIKE '%takes it over%'", adwId),
    ).toEqual([]);
    const other = world.workers.find((w) => w !== holder);
    expect(other?.out).toMatch(
      new RegExp(`run ${adwId}: worker \\S+ holds its lease until \\S+ and renews it`),
    );
    const followed = await follow;
    expect(followed.code, `${followed.stdout}\n${followed.stderr}\n${world.logs()}`).toBe(0);
    expect(followed.stdout).toMatch(/accepted on worker/);

    // The same id again, with another request and another workflow: one line, exit 2, nothing submitted.
    const trace = () => ({
      phases: world?.phases(adwId),
      events: world?.query("SELECT count(*) AS n FROM events WHERE adw_id = ?", adwId),
      sends: [world?.sends("first"), world?.sends("second"), world?.sends("third")],
    });
    const before = trace();
    for (const args of [
      ["three", "something else"],
      ["gate", "ship it", "--yes"],
    ]) {
      const again = await world.cli(["run", ...args, "--engine", "restate", "--adw-id", adwId]);
      expect(again.code, again.stdout).toBe(2);
      expect(again.stderr.trim().split("\n")).toHaveLength(1);
      expect(again.stderr).toMatch(
        new RegExp(
          `--adw-id ${adwId}: the trace already has run ${adwId} \\(three, success\\); .*sssf tail ${adwId}`,
        ),
      );
      expect(again.stdout).not.toMatch(/accepted/);
    }
    // A checkout whose trace lacks the run still cannot resubmit it: Restate holds the id.
    const elsewhere = await world.cliWith({ SSSF_DB: path.join(world.scratch, "empty.db") }, [
      "run",
      "three",
      "something else",
      "--engine",
      "restate",
      "--adw-id",
      adwId,
    ]);
    expect(elsewhere.code, elsewhere.stdout).toBe(2);
    expect(elsewhere.stderr).toMatch(
      new RegExp(`--adw-id ${adwId}: the cluster already has a run with this id`),
    );
    expect(trace()).toEqual(before);
  });
});

describe("usage errors on the cluster", () => {
  it("an invalid --adw-id, an unknown --agent or an empty request is refused by the CLI, before anything is submitted", async () => {
    world = new ClusterWorld({ first: [replyTurn("planned")], second: [], third: [] }, { restate });
    await world.start(0);
    const invocations = async () => {
      const reply = await fetch(`${world?.restate.admin}/query`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          query: "SELECT id FROM sys_invocation WHERE target_service_name = 'sssfRun'",
        }),
      });
      expect(reply.ok).toBe(true);
      return ((await reply.json()) as { rows: unknown[] }).rows.length;
    };
    const submittedBefore = await invocations();
    const cases: [string[], RegExp][] = [
      [["three", "x", "--adw-id", "no spaces"], /--adw-id: "no spaces" is not a valid id/],
      [["three", "x", "--agent", "nobody"], /--agent: no agent named "nobody"/],
      [["three", " "], /the prompt is empty/],
    ];
    for (const [args, message] of cases) {
      const result = await world.cli(["run", ...args, "--engine", "restate"]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/internal error|\n\s+at |"code":/);
    }
    // Nothing reached Restate: no new invocation of the run workflow.
    expect(await invocations()).toBe(submittedBefore);
  });
});
