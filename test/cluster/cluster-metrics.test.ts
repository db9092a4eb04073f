import { generateKeyPairSync } from "node:crypto";
import { afterEach, expect, it, vi } from "vitest";
import { createTestDatabase, describePostgres, type TestDatabase } from "../helpers/postgres.js";
import { replyTurn, writeTurn } from "../resume/resume-world.js";
import { ClusterWorld, sharedRestate } from "./cluster-world.js";
import { until } from "./restate-server.js";

// The pool's and the workers' /metrics (Prometheus's text format), and `sssf workers` forgetting
// stopped workers, on real restate-server, pool and worker processes over a PostgreSQL trace.

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
const restate = sharedRestate();
let world: ClusterWorld | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  await world?.cleanup();
  await database?.drop();
  world = undefined;
  database = undefined;
});

/** One sample of the exposition format: `name{labels} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus's text exposition format (0.0.4): every sample, with its HELP and TYPE seen. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return { samples, types };
}

async function scrape(url: string): Promise<{ samples: Sample[]; types: Map<string, string> }> {
  const reply = await fetch(`${url.replace(/\/+$/, "")}/metrics`);
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await reply.text());
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find(
    (s) => s.name === name && Object.entries(labels).every(([key, v]) => s.labels[key] === v),
  )?.value;
}

interface PoolWorkerJson {
  id: string;
  url: string;
  live: boolean;
  draining: boolean;
}

/** A Restate request-identity public key (`publickeyv1_` + base58 of the raw Ed25519 key), as restate-server logs it. */
function restatePublicKey(): string {
  const jwk = generateKeyPairSync("ed25519").publicKey.export({ format: "jwk" });
  const bytes = Buffer.from(jwk.x ?? "", "base64url");
  const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  let n = BigInt(`0x${bytes.toString("hex")}`);
  let out = "";
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return `publickeyv1_${out}`;
}

async function poolWorkers(world: ClusterWorld): Promise<PoolWorkerJson[]> {
  return ((await (await fetch(`${world.poolUrl}/pool/workers`)).json()) as { workers: PoolWorkerJson[] })
    .workers;
}

describePostgres("operating the cluster: metrics, the workers list, identity keys, the trace hint", () => {
  it("the pool and each worker serve /metrics: runs, phases, pushes, failovers, queue depth, workers", async () => {
    database = await createTestDatabase();
    world = new ClusterWorld(
      {
        first: [replyTurn("planned")],
        second: [writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      { restate, trace: database.url },
    );
    await world.start(1);
    const [worker] = await poolWorkers(world);
    expect(worker).toBeDefined();
    const before = await scrape(worker?.url ?? "");
    expect(value(before.samples, "sssf_runs", { state: "running" })).toBe(0);
    expect(before.types.get("sssf_push_duration_seconds")).toBe("histogram");
    expect(before.types.get("sssf_phase_duration_seconds")).toBe("histogram");
    expect(before.types.get("sssf_failovers_total")).toBe("counter");
    // Process default metrics, prefixed.
    expect(value(before.samples, "sssf_process_process_resident_memory_bytes")).toBeGreaterThan(0);

    const result = await world.cli(["run", "three", "add a feature", "--engine", "restate"]);
    expect(result.code, `${result.stdout}\n${result.stderr}\n${world.logs()}`).toBe(0);
    // Followed through LISTEN/NOTIFY: the phases printed as they ran.
    expect(result.stdout).toMatch(/two/);
    expect(result.stderr).not.toMatch(/has no line in the trace/);

    const after = await scrape(worker?.url ?? "");
    expect(value(after.samples, "sssf_runs_ended_total", { outcome: "accepted", role: "worker" })).toBe(1);
    expect(value(after.samples, "sssf_runs", { state: "running" })).toBe(0);
    expect(value(after.samples, "sssf_queue_depth")).toBe(0);
    // five phases (three agents; commit and test, two code phases), each counted and timed by kind
    const phases = after.samples.filter((s) => s.name === "sssf_phases_total");
    expect(phases.reduce((sum, s) => sum + s.value, 0)).toBe(5);
    expect(value(after.samples, "sssf_phases_total", { kind: "agent", status: "success" })).toBe(3);
    expect(value(after.samples, "sssf_phase_duration_seconds_count", { kind: "code" })).toBe(2);
    // A push after each phase that changed something, and at the end.
    expect(value(after.samples, "sssf_push_duration_seconds_count")).toBeGreaterThanOrEqual(2);
    expect(value(after.samples, "sssf_failovers_total")).toBe(0);

    const pool = await scrape(world.poolUrl);
    expect(value(pool.samples, "sssf_workers", { state: "live", role: "pool" })).toBe(1);
    expect(value(pool.samples, "sssf_runs", { state: "running" })).toBe(0);
    // Restate holds no run waiting for a worker.
    expect(value(pool.samples, "sssf_queue_depth")).toBe(0);
    expect(value(pool.samples, "sssf_failovers_total")).toBe(0);
  });

  it("sssf workers forgets a drained worker; --forget drops a stopped one and refuses a live one", async () => {
    database = await createTestDatabase();
    world = new ClusterWorld(
      { first: [replyTurn("a")], second: [replyTurn("b")], third: [replyTurn("c")] },
      { restate, trace: database.url },
    );
    await world.start(3);
    const [drained, killed, live] = world.workers;
    const ids = new Map((await poolWorkers(world)).map((w) => [w.url, w.id]));
    expect(ids.size).toBe(3);
    const idOf = async (proc: typeof drained) =>
      (await poolWorkers(world as ClusterWorld)).find((w) => w.id.includes(`-${proc?.child.pid}-`))?.id ?? "";
    const drainedId = await idOf(drained);
    const killedId = await idOf(killed);
    const liveId = await idOf(live);
    expect([drainedId, killedId, liveId].every((id) => id !== "")).toBe(true);

    // A live worker is not forgotten: it would join again at its next beat.
    const refused = await world.cli(["workers", "--forget", liveId]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toMatch(
      new RegExp(`^sssf: --forget: worker ${liveId} is live: drain it first`),
    );
    const unknown = await world.cli(["workers", "--forget", "nosuch"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--forget: no worker nosuch in the pool/);

    // SIGTERM drains: the worker stops, and the pool forgets it once it is silent.
    await drained?.kill("SIGTERM");
    await killed?.kill("SIGKILL");
    await until(
      "the pool forgets the drained worker",
      async () => !(await poolWorkers(world as ClusterWorld)).some((w) => w.id === drainedId),
      60_000,
    );
    // The killed one is listed as gone (its runs would be named), until it is forgotten.
    const listed = await world.cli(["workers"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(drainedId);
    expect(listed.stdout).toMatch(new RegExp(`${killedId}\\s+gone`));
    expect(listed.stdout).toMatch(new RegExp(`${liveId}\\s+live`));
    const forgot = await world.cli(["workers", "--forget", killedId]);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(forgot.stdout.trim()).toBe(`worker ${killedId} forgotten`);
    const now = (await poolWorkers(world)).map((w) => w.id);
    expect(now).toEqual([liveId]);
  });

  it("a worker given Restate's identity keys refuses unsigned requests; a malformed key is refused at start", async () => {
    database = await createTestDatabase();
    world = new ClusterWorld(
      { first: [replyTurn("a")], second: [replyTurn("b")], third: [replyTurn("c")] },
      { restate, trace: database.url },
    );
    // The workers inherit the test's environment (the variable is theirs alone).
    process.env.SSSF_RESTATE_IDENTITY_KEYS = restatePublicKey();
    try {
      await world.start(1);
    } finally {
      delete process.env.SSSF_RESTATE_IDENTITY_KEYS;
    }
    const [worker] = await poolWorkers(world);
    const unsigned = await fetch(`${worker?.url}/discover`, {
      headers: { accept: "application/vnd.restate.endpointmanifest.v3+json" },
    });
    expect(unsigned.status).toBe(401);
    // Prometheus's scrape is not Restate's: /metrics stays open.
    expect((await fetch(`${worker?.url}/metrics`)).status).toBe(200);

    const bad = await world.cliWith({ SSSF_RESTATE_IDENTITY_KEYS: "not-a-key" }, [
      "worker",
      "--remote",
      world.remote,
      "--work-dir",
      `${world.scratch}/bad-worker`,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(
      /^sssf: SSSF_RESTATE_IDENTITY_KEYS: "not-a-key" is not a Restate public key/,
    );
  });

  it("sssf run --engine restate reading another trace than the workers' says which setting to set", async () => {
    database = await createTestDatabase();
    world = new ClusterWorld(
      { first: [replyTurn("a")], second: [replyTurn("b")], third: [replyTurn("c")] },
      { restate, trace: database.url },
    );
    await world.start(1);
    // The workers write PostgreSQL; this CLI reads a SQLite file of its own.
    const result = await world.cliWith({ SSSF_DB: `${world.scratch}/elsewhere.db` }, [
      "run",
      "three",
      "x",
      "--engine",
      "restate",
    ]);
    expect(result.code, `${result.stdout}\n${result.stderr}\n${world.logs()}`).toBe(0);
    expect(result.stdout).toMatch(/accepted on worker/);
    const hints = result.stderr.split("\n").filter((line) => line.includes("has no line in the trace"));
    expect(hints).toHaveLength(1);
    expect(hints[0]).toMatch(/elsewhere\.db.*set SSSF_DB \(or trace\.url in sssf\.config\.yaml\)/);
  });

  it("a kill -9 mid-phase is one failover on the pool and on the worker that takes the run over", async () => {
    database = await createTestDatabase();
    world = new ClusterWorld(
      {
        first: [replyTurn("planned")],
        // The first attempt's build hangs until its worker is killed; the next one builds.
        second: [{ delay_ms: 120_000, reply: "{}" }, writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      { restate, trace: database.url },
    );
    await world.start(2);
    const adwId = "0e0e0e0e";
    const run = world.cli(["run", "three", "x", "--engine", "restate", "--adw-id", adwId, "--detach"]);
    expect((await run).code).toBe(0);
    const first = await world.workerRunning(adwId);
    await until("the hanging send", () => world?.sends("second") === 1);
    await first.kill("SIGKILL");
    const second = await world.workerRunning(adwId);
    expect(second).not.toBe(first);
    await until(
      "the run's success",
      async () =>
        (
          await (world as ClusterWorld).rows(
            "SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'",
            adwId,
          )
        ).length === 1,
    );
    const survivor = (await poolWorkers(world)).find((w) => w.live && w.id.includes(`-${second.child.pid}-`));
    const worker = await scrape(survivor?.url ?? "");
    expect(value(worker.samples, "sssf_failovers_total")).toBe(1);
    const pool = await scrape(world.poolUrl);
    expect(value(pool.samples, "sssf_failovers_total")).toBe(1);
    expect(value(pool.samples, "sssf_workers", { state: "live" })).toBe(1);
  });
});
