// One simulated worker host of `bench/trace-fleet.mjs`: RUNS runs, each a Tracer trickling events as a
// real run does (a tool call or text line every 300 ms, a burst of 20 every 8 s, a phase boundary —
// a journaled step, flushed — every 5 s), and one follower per run reading its new rows as `sssf tail`
// does. Mode `before`: the code path before batching (a transaction every 10 ms of records, a pool per
// run, followers polling every 250 ms); `after`: the defaults (one transaction a second per run, one
// pool per process, followers woken by NOTIFY). Prints one JSON line of counts when done.
// argv: <url> <runs> <mode> <seconds> <host index> <scratch dir>
import path from "node:path";
import { openTraceStore, Tracer } from "../dist/trace/index.js";

const [url, runsArg, mode, secondsArg, host, dir] = process.argv.slice(2);
const runs = Number(runsArg);
const until = Date.now() + Number(secondsArg) * 1000;
const before = mode === "before";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const counts = { batches: 0, records: 0, reads: 0, wakes: 0, seconds: 0 };
const started = performance.now();
const now = () => new Date().toISOString();

/** A run's store: before, a pool of its own (a distinct URL is a distinct pool); after, the process's. */
function runUrl(i) {
  if (!before) return url;
  const u = new URL(url);
  u.searchParams.set("application_name", `sssf-run-${i}`);
  return u.toString();
}

function sessionRow(adwId, status) {
  return {
    table: "sessions",
    row: {
      adw_id: adwId,
      workflow: "bench",
      request: "simulated",
      status,
      accepted: null,
      reason: null,
      cwd: dir,
      started_at: now(),
      ended_at: status === "running" ? null : now(),
      duration_ms: null,
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0,
      archived: 0,
      worktree: null,
      branch: null,
      base_ref: null,
      checkout: null,
      pid: process.pid,
      host: `host-${host}`,
    },
  };
}

function eventRecord(adwId, n) {
  return {
    table: "events",
    row: {
      id: `evt_${adwId}_${n}`,
      adw_id: adwId,
      phase_id: null,
      parent_id: null,
      type: "tool_call",
      name: `bash: step ${n}`,
      agent: "builder",
      ok: 1,
      started_at: now(),
      ended_at: now(),
      duration_ms: 12,
      payload: JSON.stringify({ command: `echo ${n}`, output: "x".repeat(200) }),
    },
  };
}

/** Runs start over the first 3 s, as a fleet's do (not all in one instant). */
const startOf = (i) => (3000 * i) / Math.max(1, runs);

async function simulateRun(i) {
  const adwId = `${mode[0]}${host}r${i}`;
  await sleep(startOf(i));
  const store = await openTraceStore(runUrl(i));
  const tracer = new Tracer({
    store,
    eventsFile: path.join(dir, `host-${host}`, adwId, "events.jsonl"),
    ...(before ? { storeIntervalMs: 10 } : {}),
  });
  const session = sessionRow(adwId, "running");
  tracer.write(session);
  let n = 0;
  let nextBurst = Date.now() + 8000 * Math.random();
  let nextPhase = Date.now() + 5000 * Math.random();
  while (Date.now() < until) {
    tracer.write(eventRecord(adwId, n++));
    if (Date.now() >= nextBurst) {
      for (let b = 0; b < 20; b++) tracer.write(eventRecord(adwId, n++));
      nextBurst += 8000;
    }
    if (Date.now() >= nextPhase) {
      await tracer.flush();
      nextPhase += 5000;
    }
    await sleep(300);
  }
  tracer.write({ ...session, row: { ...session.row, status: "success", ended_at: now() } });
  await tracer.close();
  counts.batches += tracer.stats.batches;
  counts.records += tracer.stats.records;
  await store.close();
}

async function follow(i) {
  const adwId = `${mode[0]}${host}r${i}`;
  await sleep(startOf(i) + 100);
  const store = await openTraceStore(runUrl(i), { readonly: true });
  const waker = await store.follow(adwId);
  let cursor = 0;
  try {
    // As `sssf tail`: the session first; once it has ended, its rows are all there.
    for (;;) {
      const session = await store.get("SELECT status FROM sessions WHERE adw_id = ?", [adwId]);
      const rows = await store.all(
        "SELECT rowid AS r, id FROM events WHERE adw_id = ? AND rowid > ? ORDER BY rowid",
        [adwId, cursor],
      );
      counts.reads += 2;
      for (const row of rows) cursor = Math.max(cursor, Number(row.r ?? cursor));
      if (session !== undefined && session.status !== "running") break;
      if (before) await sleep(250);
      else await waker.wait(250);
      counts.wakes += 1;
    }
  } finally {
    await waker.close();
    await store.close();
  }
}

await Promise.all([
  ...Array.from({ length: runs }, (_, i) => simulateRun(i)),
  ...Array.from({ length: runs }, (_, i) => follow(i)),
]);
counts.seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify(counts));
