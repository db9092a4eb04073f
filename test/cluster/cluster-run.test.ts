import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { cliPath } from "../helpers/sandbox.js";
import { replyTurn, writeTurn } from "../resume/resume-world.js";
import { git } from "../worktree/worktree-world.js";
import { ClusterWorld, pollUntil, sharedRestate, UNBOXED } from "./cluster-world.js";

// A cluster starts several processes: on a loaded 2-core machine that takes its time.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
const restate = sharedRestate();
let world: ClusterWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

describe("sssf run --engine restate", () => {
  it("runs the repo's workflow on a worker, pushes its branch and ends as the CLI shows", async () => {
    world = new ClusterWorld(
      {
        first: [replyTurn("planned")],
        second: [writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      { restate },
    );
    await world.start(1);
    const result = await world.cli(["run", "three", "add a feature", "--engine", "restate"]);
    expect(result.code, `${result.stdout}\n${result.stderr}\n${world.logs()}`).toBe(0);
    const adwId = /submitted ([0-9a-f]{8})/.exec(result.stdout)?.[1] ?? "";
    expect(world.phases(adwId)).toEqual([
      "one:success",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
    expect(result.stdout).toMatch(/accepted on worker/);
    const branch = `sssf/three/${adwId}`;
    expect(git(world.remote, ["log", "--format=%s", "-1", branch]).trim()).toBe("Resume test: built");
    expect(git(world.remote, ["show", `${branch}:src/feature.js`])).toBe("built\n");
    // The worker's session files load into another trace, and again into the shared one unchanged.
    const sessions = path.join(world.scratch, "worker-1/sessions");
    const other = path.join(world.scratch, "other.db");
    const count = (db: string) =>
      Number(
        JSON.parse(
          execFileSync(process.execPath, [cliPath, "phases", adwId, "--json", "--db", db], {
            encoding: "utf8",
          }),
        ).length,
      );
    for (const db of [other, other, world.dbPath]) {
      const loaded = await world.cli(["db", "load", sessions, "--db", db]);
      expect(loaded.code, loaded.stderr).toBe(0);
      expect(loaded.stdout).toMatch(/^loaded 1 session\(s\), \d+ record\(s\) from /);
      expect(count(db)).toBe(5);
    }
    const missing = await world.cli(["db", "load", path.join(world.scratch, "nope")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Sessions directory not found: .*nope/);
  });
});

describe("a run that commits nothing", () => {
  it("pushes no branch; what it left uncommitted is kept on the remote as its wip ref; --yes approves on the worker", async () => {
    world = new ClusterWorld(
      { first: [writeTurn("scratch.txt", "noted")], second: [], third: [] },
      { restate },
    );
    await world.start(1);
    const result = await world.cli(["run", "gate", "look", "--engine", "restate", "--yes", "--json"]);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}") as Record<string, unknown>;
    const adwId = String(summary.adw_id);
    expect(summary).toMatchObject({ accepted: true, branch: null, wip_ref: `refs/sssf/wip/${adwId}` });
    expect(world.phases(adwId)).toEqual(["one:success", "approve:success"]);
    expect(git(world.remote, ["for-each-ref", "--format=%(refname)"]).trim().split("\n")).toEqual([
      "refs/heads/main",
      `refs/sssf/wip/${adwId}`,
    ]);
    expect(git(world.remote, ["show", `refs/sssf/wip/${adwId}:scratch.txt`])).toBe("noted\n");
  });
});

describe("failover", () => {
  it("kill -9 of the worker mid-phase: another worker re-runs that phase from the last phase's work, the phases before it are not re-run", async () => {
    world = new ClusterWorld(
      {
        // Left uncommitted by the first phase: the worker taking over must start from it.
        first: [writeTurn("notes.md", "planned")],
        // The first attempt's build hangs until its worker is killed; the next one builds.
        second: [{ delay_ms: 120_000, reply: "{}" }, writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      // Unboxed, the prompts spell each worker's own context_handoff_dir (see UNBOXED).
      { restate, agents: UNBOXED },
    );
    await world.start(3);
    // Followed from the terminal that submitted it, through the failover.
    const follow = world.cli([
      "run",
      "three",
      "add a feature",
      "--engine",
      "restate",
      "--adw-id",
      "0f0f0f0f",
    ]);
    const adwId = "0f0f0f0f";
    const first = await world.workerRunning(adwId);
    await waitFor(() => world?.sends("second") === 1);
    // Followed from the trace too, on the same host as the worker about to die.
    const tail = world.cli(["tail", adwId]);
    await first.kill("SIGKILL");
    // A read command here finds the session's sssf gone: not its run to close (Restate moves it).
    const listed = await world.cli(["sessions"]);
    expect(listed.stderr).toBe("");
    const second = await world.workerRunning(adwId);
    expect(second).not.toBe(first);
    await waitFor(
      () =>
        world?.query("SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'", adwId).length === 1,
      120_000,
    );
    expect(world.phases(adwId), world.logs()).toEqual([
      "one:success+r",
      "two:interrupted",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
    expect(world.sends("first")).toBe(1);
    expect(world.sends("second")).toBe(2);
    // The two builds were asked in two workers' folders (their prompts differ), the plan in one.
    const handoff = (prompt: string) =>
      /\/(worker-\d+)\/sessions\/0f0f0f0f\/context_handoff/.exec(prompt)?.[1];
    const builds = world.sb
      .agent("second")
      .sends()
      .map((send) => handoff(send.prompt));
    expect(builds[0]).toBe(`worker-${world.workers.indexOf(first) + 1}`);
    expect(builds[1]).toBe(`worker-${world.workers.indexOf(second) + 1}`);
    const takeover = world.query<{ name: string }>(
      "SELECT name FROM events WHERE adw_id = ? AND type = 'error' AND name LIKE '%takes it over%'",
      adwId,
    );
    expect(takeover).toHaveLength(1);
    const closedByReaders = world.query<{ name: string }>(
      "SELECT name FROM events WHERE adw_id = ? AND type = 'error' AND name LIKE '%closed by sssf%'",
      adwId,
    );
    expect(closedByReaders).toEqual([]);
    const tailed = await tail;
    expect(tailed.code, tailed.stdout + tailed.stderr).toBe(0);
    expect(tailed.stdout).toMatch(/takes it over/);
    expect(tailed.stdout).toMatch(/\nACCEPTED 0f0f0f0f/);
    // The worker's checkout is not the tail's to ask git about: no local review commands.
    expect(tailed.stdout).toMatch(
      /its checkout .* is gone or on another machine .*git fetch origin sssf\/three\/0f0f0f0f/,
    );
    expect(tailed.stdout).not.toMatch(/left for review/);
    const branch = `sssf/three/${adwId}`;
    expect(git(world.remote, ["show", `${branch}:notes.md`])).toBe("planned\n");
    expect(git(world.remote, ["show", `${branch}:src/feature.js`])).toBe("built\n");
    expect(git(world.remote, ["for-each-ref", "refs/sssf/"]).trim()).toBe("");
    const followed = await follow;
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toMatch(/takes it over/);
    // The replayed phase as sssf resume prints it: the terminal reporter's ↺ line.
    expect(followed.stdout).toMatch(
      /↺ 01 one \(agent first\) replayed from the trace: success, nothing redone/,
    );
    expect(followed.stdout).toMatch(
      /accepted on worker \S+ · branch sssf\/three\/0f0f0f0f pushed \(review: git fetch origin sssf\/three\/0f0f0f0f/,
    );
  });
});

const waitFor = (check: () => boolean | Promise<boolean>, ms?: number) =>
  pollUntil(check, () => world?.logs() ?? "", ms);

describe("a worker that falls silent", () => {
  it("stopped (SIGSTOP, as a lost host): the pool cuts its connections after its silence, another worker takes the run over", async () => {
    world = new ClusterWorld(
      {
        first: [replyTurn("planned")],
        second: [{ delay_ms: 120_000, reply: "{}" }, writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      { restate },
    );
    await world.start(2);
    const submitted = await world.cli(["run", "three", "add a feature", "--engine", "restate", "--detach"]);
    const adwId = submitted.stdout.trim();
    const first = await world.workerRunning(adwId);
    await waitFor(() => world?.sends("second") === 1);
    first.child.kill("SIGSTOP");
    await waitFor(
      () =>
        world?.query("SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'", adwId).length === 1,
    );
    const phases = [
      "one:success+r",
      "two:interrupted",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ];
    expect(world.phases(adwId)).toEqual(phases);
    expect(world.pool?.out).toMatch(/fell silent: its runs go back to Restate/);

    // Woken (a healed partition), the stale attempt finds the session claimed: it stops its agent and
    // writes nothing more to the trace or the remote.
    const trace = () => ({
      session: world?.query(
        "SELECT status, accepted, pid, host, ended_at FROM sessions WHERE adw_id = ?",
        adwId,
      ),
      events: world?.query("SELECT count(*) AS n FROM events WHERE adw_id = ?", adwId),
      steps: world?.query("SELECT count(*) AS n FROM steps WHERE adw_id = ?", adwId),
      refs: git(world?.remote ?? "", ["for-each-ref", "--format=%(refname) %(objectname)"]),
    });
    const before = trace();
    expect(before.session).toMatchObject([{ status: "success" }]);
    expect(before.session?.[0]).not.toMatchObject({ pid: first.child.pid });
    first.child.kill("SIGCONT");
    await waitFor(
      () => new RegExp(`run ${adwId}: not accepted: fenced: pid \\d+ on \\S+ runs it now`).test(first.out),
      30_000,
    );
    expect(trace()).toEqual(before);
    expect(world.phases(adwId)).toEqual(phases);
    expect(world.sends("second")).toBe(2);
    // Its session files keep what it did, the fence included.
    const staleEvents = readFileSync(
      path.join(world.scratch, `worker-${world.workers.indexOf(first) + 1}/sessions/${adwId}/events.jsonl`),
      "utf8",
    );
    expect(staleEvents).toMatch(/fenced: pid \d+ on \S+ runs it now; worker \S+ stops its stale attempt/);
  });
});

describe("a Restate restart", () => {
  it("kill -9 and restart of restate-server mid-phase: the run completes, nothing runs twice", async () => {
    world = new ClusterWorld(
      {
        first: [replyTurn("planned")],
        second: [{ ...writeTurn("src/feature.js", "built"), delay_ms: 3000 }],
        third: [replyTurn("reviewed")],
      },
      { restate },
    );
    await world.start(2);
    const submitted = await world.cli(["run", "three", "add a feature", "--engine", "restate", "--detach"]);
    const adwId = submitted.stdout.trim();
    await waitFor(() => world?.sends("second") === 1);
    await world.restate.stop("SIGKILL");
    await world.restate.start();
    await waitFor(
      () =>
        world?.query("SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'", adwId).length === 1,
      90_000,
    );
    expect(world.phases(adwId)).toEqual([
      "one:success",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
    expect([world.sends("first"), world.sends("second"), world.sends("third")]).toEqual([1, 1, 1]);
    // Restate learns the outcome too: attaching answers with the run's result.
    const output = await fetch(`${world.restate.ingress}/restate/workflow/sssfRun/${adwId}/attach`);
    expect(await output.json()).toMatchObject({ adw_id: adwId, accepted: true });
  });
});

describe("engineer approval on the cluster", () => {
  it("sssf approve from another checkout resolves the durable promise, kept for the worker that takes the run over", async () => {
    world = new ClusterWorld({ first: [replyTurn("the plan")], second: [], third: [] }, { restate });
    await world.start(2);
    const submitted = await world.cli(["run", "gate", "ship it", "--engine", "restate", "--detach"]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const adwId = submitted.stdout.trim();
    const waiting = () =>
      world?.query("SELECT 1 FROM events WHERE adw_id = ? AND name LIKE 'waiting for approval:%'", adwId)
        .length ?? 0;
    await waitFor(() => waiting() === 1);
    // The run's worker dies while its engineer phase waits; the answer goes to Restate, not to it.
    await (await world.workerRunning(adwId)).kill("SIGKILL");
    const elsewhere = path.join(world.scratch, "laptop");
    git(world.scratch, ["clone", "-q", world.remote, elsewhere]);
    const approved = await world.cliIn(elsewhere, ["approve", adwId]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(/approved phase \d+ approve of session \w+ as \S+@\S+/);
    const again = await world.cliIn(elsewhere, ["reject", adwId, "--reason", "late"]);
    expect(again.code, again.stdout).toBe(2);
    // Refused by Restate (the promise is resolved), or, once the new worker went past the approval, by
    // the trace.
    expect(again.stderr).toMatch(
      /already answered|has no phase waiting for approval \(the trace shows it (running|success)\)/,
    );
    await waitFor(
      () =>
        world?.query("SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'", adwId).length === 1,
      120_000,
    );
    expect(world.phases(adwId)).toEqual(["one:success+r", "approve:interrupted", "approve:success"]);
    expect(world.sends("first")).toBe(1);
  });
});
