// The trace on PostgreSQL (docs/trace.md#postgresql) against the same trace on SQLite, in one process,
// interleaved rounds, medians:
// - ingest: 20,000 tool-call events through the Tracer (batched transactions, 100-row upserts);
// - one statement's round trip through the TraceStore, a one-row SELECT (on PostgreSQL a `pg` pool,
//   awaited).
// Needs a server: SSSF_BENCH_POSTGRES_URL (or SSSF_TEST_POSTGRES_URL, as .ci/run sets it), a URL of a
// user that may create databases; the benchmark creates and drops its own.
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { openTraceStore, Tracer } from "../dist/trace/index.js";
import { median, scratch } from "./lib.mjs";

const EVENTS = 20_000;
const ROUNDS = 3;
const TRIPS = 1000;

function event(adwId, i) {
  const at = new Date(Date.UTC(2025, 0, 1) + i).toISOString();
  return {
    table: "events",
    row: {
      id: `evt_${adwId}_${i}`,
      adw_id: adwId,
      phase_id: null,
      parent_id: null,
      type: "tool_call",
      name: `bash: echo ${i}`,
      agent: "flood",
      ok: 1,
      started_at: at,
      ended_at: at,
      duration_ms: 1,
      payload: JSON.stringify({ command: `echo ${i}`, output: "x".repeat(64) }),
    },
  };
}

async function ingest(location, dir, adwId) {
  const store = await openTraceStore(location);
  try {
    const tracer = new Tracer({ store, eventsFile: path.join(dir, adwId, "events.jsonl") });
    const started = performance.now();
    for (let i = 0; i < EVENTS; i++) tracer.write(event(adwId, i));
    await tracer.close();
    return performance.now() - started;
  } finally {
    await store.close();
  }
}

/** One statement's round trip through the TraceStore (awaited; on PostgreSQL a `pg` pool), in ms. */
async function storeTrip(location) {
  const store = await openTraceStore(location);
  try {
    const started = performance.now();
    for (let i = 0; i < TRIPS; i++) await store.get("SELECT adw_id FROM sessions WHERE adw_id = ?", ["none"]);
    return (performance.now() - started) / TRIPS;
  } finally {
    await store.close();
  }
}

export async function run() {
  const admin = process.env.SSSF_BENCH_POSTGRES_URL || process.env.SSSF_TEST_POSTGRES_URL;
  if (!admin) {
    console.log("  (skipped: set SSSF_BENCH_POSTGRES_URL to a PostgreSQL server)");
    return [];
  }
  const pg = createRequire(import.meta.url)("pg");
  const name = `sssf_bench_${randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const { dir, cleanup } = scratch("pg-trace");
  const sqlite = { ingest: [], store: [] };
  const postgres = { ingest: [], store: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      sqlite.ingest.push(await ingest(path.join(dir, "trace.db"), dir, `s${round}`));
      postgres.ingest.push(await ingest(url.toString(), dir, `p${round}`));
      sqlite.store.push(await storeTrip(path.join(dir, "trace.db")));
      postgres.store.push(await storeTrip(url.toString()));
    }
  } finally {
    cleanup();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  }
  const pgIngest = median(postgres.ingest);
  return [
    { label: `ingest of ${EVENTS} events, PostgreSQL`, value: (EVENTS / pgIngest) * 1000, unit: "events/s" },
    { label: "ingest time, PostgreSQL ÷ SQLite", value: pgIngest / median(sqlite.ingest), unit: "×" },
    { label: "one statement's round trip, PostgreSQL", value: median(postgres.store), unit: "ms" },
    {
      label: "one statement's round trip, PostgreSQL ÷ SQLite",
      value: median(postgres.store) / median(sqlite.store),
      unit: "×",
    },
  ];
}
