import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { sleep, waitFor } from "../helpers/wait.js";
import { replyTurn, writeTurn } from "../resume/resume-world.js";
import { git } from "../worktree/worktree-world.js";
import { ClusterWorld, freePort, sharedRestate } from "./cluster-world.js";

// A cluster starts several processes: on a loaded 2-core machine that takes its time.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
const restate = sharedRestate();
let world: ClusterWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const turns = { first: [replyTurn("planned")], second: [replyTurn("built")], third: [replyTurn("reviewed")] };

describe("cluster commands refuse bad input with one line naming the flag", () => {
  it("run --engine: no ingress, an unknown engine, local-only flags, cluster-only flags without it", async () => {
    world = new ClusterWorld(turns, { restate });
    const noIngress = await world.cliWith({ SSSF_RESTATE_INGRESS: "" }, [
      "run",
      "three",
      "x",
      "--engine",
      "restate",
    ]);
    expect(noIngress.code).toBe(2);
    expect(noIngress.stderr).toMatch(/--ingress.*SSSF_RESTATE_INGRESS.*engine\.restate\.ingress/);
    const ingress = `http://127.0.0.1:${await freePort()}`;
    const cases: [string[], RegExp][] = [
      [["--engine", "nope"], /--engine: expected local or restate, got "nope"/],
      [["--engine", "restate", "--ingress", ingress, "--merge"], /--merge: not with --engine restate/],
      [["--engine", "restate", "--ingress", ingress, "--in-place"], /--in-place: not with --engine restate/],
      [["--engine", "restate", "--ingress", "ftp://x"], /--ingress: "ftp:\/\/x" is not an http\(s\) URL/],
      [["--detach"], /--detach: only with --engine restate/],
      [["--engine", "restate", "--ingress", ingress], /cannot reach Restate at http:\/\/127\.0\.0\.1:\d+/],
      [
        ["--engine", "restate", "--ingress", ingress, "--base", "nowhere"],
        /--base: "nowhere" names no commit/,
      ],
    ];
    for (const [flags, message] of cases) {
      const result = await world.cli(["run", "three", "x", ...flags]);
      expect(result.code, flags.join(" ")).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr, flags.join(" ")).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const unknown = await world.cli(["run", "nosuch", "x", "--engine", "restate", "--ingress", ingress]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/nosuch/);
  });

  it("worker: no shared trace, no pool, a remote that cannot be cloned", async () => {
    world = new ClusterWorld(turns, { restate });
    const env = { SSSF_DB: "", SSSF_POOL: "" };
    const noDb = await world.cliWith(env, [
      "worker",
      "--remote",
      world.remote,
      "--work-dir",
      "w",
      "--pool",
      "http://127.0.0.1:1",
    ]);
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toMatch(/--db: .*SSSF_DB/);
    const noPool = await world.cliWith(env, [
      "worker",
      "--remote",
      world.remote,
      "--work-dir",
      "w",
      "--db",
      "t.db",
    ]);
    expect(noPool.code).toBe(2);
    expect(noPool.stderr).toMatch(/--pool: .*SSSF_POOL/);
    const badRemote = await world.cliWith(env, [
      "worker",
      "--remote",
      path.join(world.scratch, "missing.git"),
      "--work-dir",
      path.join(world.scratch, "w"),
      "--db",
      "t.db",
      "--pool",
      "http://127.0.0.1:1",
    ]);
    expect(badRemote.code).not.toBe(0);
    expect(badRemote.stderr).toMatch(/sssf worker: cannot clone .*missing\.git/);
    const slots = await world.cliWith(env, [
      "worker",
      "--remote",
      world.remote,
      "--work-dir",
      "w",
      "--db",
      "t.db",
      "--pool",
      "http://127.0.0.1:1",
      "--slots",
      "0",
    ]);
    expect(slots.code).toBe(2);
    expect(slots.stderr).toMatch(/--slots: expected a whole number of at least 1, got "0"/);
  });
});

describe("a run the cluster cannot start", () => {
  it("a base commit that was never pushed fails the run at once, saying so, instead of retrying", async () => {
    world = new ClusterWorld(turns, { restate });
    await world.start(1);
    writeFileSync(path.join(world.dir, "local.txt"), "not pushed\n");
    git(world.dir, ["add", "local.txt"]);
    git(world.dir, ["commit", "-q", "-m", "local only"]);
    const result = await world.cli(["run", "three", "x", "--engine", "restate"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /base commit [0-9a-f]{12} is not on .*remote\.git: push it, then submit again/,
    );
    // The worker's next beat (each second) says it is idle again.
    let workers = await world.cli(["workers"]);
    for (let i = 0; i < 30 && !/idle/.test(workers.stdout); i++) {
      await sleep(500);
      workers = await world.cli(["workers"]);
    }
    expect(workers.code).toBe(0);
    expect(workers.stdout).toMatch(/live .* 0\/2 slots {2}idle/);
  });
});

describe("a run whose commit the cluster cannot run", () => {
  it("a config naming prompts the commit lacks (left untracked here) fails the run at once, naming them", async () => {
    world = new ClusterWorld(turns, { restate });
    await world.start(1);
    // Here the prompts exist (the CLI's own checks pass); the pushed commit does not hold them.
    writeFileSync(path.join(world.dir, ".gitignore"), "adws/adw_data/\n");
    git(world.dir, ["rm", "-r", "-q", "--cached", "adws/adw_data/prompt_engineering"]);
    world.commitAndPush({});
    const result = await world.cli(["run", "three", "x", "--engine", "restate"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/invalid config .*sssf\.config\.yaml/);
    // Each problem on its own line, as a local run prints them.
    expect(result.stderr).toMatch(
      /\n {2}agents\[0\]\.prompt_engineering\.system: file not found: .*first\/system\.md/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Tried once: a retry would find the same commit.
    const tries = world.workers[0]?.out.match(/could not run/g) ?? [];
    expect(tries).toHaveLength(1);
  });
});

describe("a worker whose trace is unavailable for a while", () => {
  it("waits and retries: the run completes and the trace holds every event its session file has", async () => {
    world = new ClusterWorld(
      {
        first: [replyTurn("planned")],
        second: [{ ...writeTurn("src/feature.js", "built"), delay_ms: 1500 }],
        third: [replyTurn("reviewed")],
      },
      { restate },
    );
    await world.start(1);
    const submitted = await world.cli(["run", "three", "add", "--engine", "restate", "--detach"]);
    const adwId = submitted.stdout.trim();
    const w = world;
    await waitFor(() => w.sends("second") === 1, 120_000, "the second agent");
    // Another process holds the trace's write lock for 5 s while the worker writes.
    const blocker = openRawSqlite(w.dbPath);
    blocker.exec("BEGIN EXCLUSIVE");
    await sleep(5000);
    blocker.exec("COMMIT");
    blocker.close();
    await waitFor(
      () => w.query("SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'", adwId).length === 1,
      120_000,
      "the run's end",
    );
    const file = path.join(w.scratch, "worker-1/sessions", adwId, "events.jsonl");
    const records = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { table: string; row: { id: string } });
    const inFile = new Set(records.filter((r) => r.table === "events").map((r) => r.row.id));
    const inDb = new Set(
      w.query<{ id: string }>("SELECT id FROM events WHERE adw_id = ?", adwId).map((r) => r.id),
    );
    expect(inFile.size).toBeGreaterThan(10);
    expect([...inFile].filter((id) => !inDb.has(id))).toEqual([]);
    expect(w.phases(adwId)).toEqual([
      "one:success",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
  });
});
