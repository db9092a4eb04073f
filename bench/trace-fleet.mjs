// A fleet's trace on one PostgreSQL (docs/cluster.md#scale): N simulated runs (20, 50, 100) spread over
// HOSTS processes (`trace-fleet-host.mjs`: each run trickles events as a real one does, one follower per
// run), before (a transaction per 10 ms of records, a pool per run, followers polling every 250 ms) and
// after (one transaction a second per run, one pool per process, followers woken by NOTIFY). Measured
// on the server: transactions/s (pg_stat_database.xact_commit delta), rows/s (events stored), peak
// connections (pg_stat_activity, sampled every 200 ms); and the per-run and per-follower unit costs the
// 1,000-runs estimate in docs/cluster.md is computed from.
// Needs a server: SSSF_BENCH_POSTGRES_URL (or SSSF_TEST_POSTGRES_URL), a user that may create databases.
// SSSF_FLEET_RUNS="20,50" and SSSF_FLEET_SECONDS=20 change the sizes and the length of each round.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openTraceStore } from "../dist/trace/index.js";
import { scratch } from "./lib.mjs";

const HOSTS = 5;
const SIZES = (process.env.SSSF_FLEET_RUNS ?? "20,50,100").split(",").map(Number);
const SECONDS = Number(process.env.SSSF_FLEET_SECONDS ?? 20);
const HOST_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "trace-fleet-host.mjs");

async function serverCounts(client, name) {
  const stats = await client.query(
    "SELECT xact_commit::bigint AS commits FROM pg_stat_database WHERE datname = $1",
    [name],
  );
  return Number(stats.rows[0]?.commits ?? 0);
}

function runHost(url, runs, mode, host, dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [HOST_SCRIPT, url, String(runs), mode, String(SECONDS), String(host), dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split("\n").pop()))
        : reject(new Error(`host ${host} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

/** One round: `runs` runs over HOSTS processes in `mode`; the server's counts over its length. */
async function round(client, name, url, runs, mode, dir) {
  // pg_stat_database is flushed by each backend at most once a second: read it after a pause.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const commits0 = await serverCounts(client, name);
  const rows0 = Number((await client.query("SELECT count(*) AS n FROM events")).rows[0].n);
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const active = await client.query(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
        [name],
      );
      peak = Math.max(peak, Number(active.rows[0].n));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const started = performance.now();
  const perHost = Math.ceil(runs / HOSTS);
  let hosts;
  try {
    // Every host to its end (a failed one must not leave the others writing into a deleted folder).
    const settled = await Promise.allSettled(
      Array.from({ length: HOSTS }, (_, h) =>
        runHost(url, perHost, mode, h, path.join(dir, `${mode}-${runs}`)),
      ),
    );
    const failed = settled.find((one) => one.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    hosts = settled.map((one) => one.value);
  } finally {
    sampling = false;
    await sampler;
  }
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const commits = (await serverCounts(client, name)) - commits0;
  const rows = Number((await client.query("SELECT count(*) AS n FROM events")).rows[0].n) - rows0;
  const sum = (key) => hosts.reduce((total, host) => total + host[key], 0);
  // The hosts' own window (their runs and followers, not node's start-up) for the unit costs.
  const window = Math.max(...hosts.map((host) => host.seconds));
  const total = perHost * HOSTS;
  return {
    runs: total,
    seconds,
    window,
    commits,
    rows,
    peak,
    writeTx: sum("batches"),
    reads: sum("reads"),
  };
}

export async function run() {
  const admin = process.env.SSSF_BENCH_POSTGRES_URL || process.env.SSSF_TEST_POSTGRES_URL;
  if (!admin) {
    console.log("  (skipped: set SSSF_BENCH_POSTGRES_URL to a PostgreSQL server)");
    return [];
  }
  const pg = createRequire(import.meta.url)("pg");
  const name = `sssf_fleet_${randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const { dir, cleanup } = scratch("trace-fleet");
  const figures = [];
  const db = new pg.Client({ connectionString: url.toString() });
  try {
    // The schema, once, as the first worker creates it.
    await (await openTraceStore(url.toString())).close();
    await db.connect();
    for (const runs of SIZES) {
      for (const mode of ["before", "after"]) {
        let r;
        try {
          r = await round(db, name, url.toString(), runs, mode, dir);
        } catch (error) {
          // A round the server could not take (connections refused or timed out) is a result too.
          const why = String(error.message).match(/cannot be reached: ([^\n]*)|too many clients[^\n]*/)?.[0];
          figures.push({
            label: `${runs} runs, ${mode}: failed (${why ?? "a host failed"})`,
            value: Number.NaN,
            unit: "",
          });
          continue;
        }
        const tag = `${r.runs} runs, ${mode}`;
        figures.push(
          { label: `${tag}: transactions/s (server)`, value: r.commits / r.seconds, unit: "tx/s" },
          {
            label: `${tag}: write transactions/s per run`,
            value: r.writeTx / r.window / r.runs,
            unit: "tx/s",
          },
          {
            label: `${tag}: follower reads/s per follower`,
            value: r.reads / r.window / r.runs,
            unit: "stmt/s",
          },
          { label: `${tag}: event rows/s`, value: r.rows / r.seconds, unit: "rows/s" },
          { label: `${tag}: peak connections (${HOSTS} processes)`, value: r.peak, unit: "conns" },
        );
      }
    }
  } finally {
    await db.end().catch(() => {});
    cleanup();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  }
  return figures;
}
