// Trace ingest from one agent: an exec agent floods tool_call lines; each becomes an `events` row on
// the same path a real run takes (stdout line → ToolCall → trace record → batched transaction).
// In process: `execRuntime.send` into a `Tracer`; time-to-commit is measured per event from the agent's
// emit stamp to its transaction's commit (the tracer's `onCommit`).
// End to end: `sssf run prompt flood --agent flood` in a scratch repo (a worktree run, the default),
// next to the ceiling: the same driver inserting the same rows with one prepared statement in one
// transaction, in a child process; interleaved rounds, medians, and their ratio.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { execRuntime } from "../dist/runtimes/exec/index.js";
import { columnNames, newId, openTraceStore, Tracer } from "../dist/trace/index.js";

import { benchRepo, cli, fmt, GIT_IDENTITY, median, percentile, root, scratch } from "./lib.mjs";

const EVENTS = 200_000;
const RATE = 50_000;
/** Interleaved rounds of the end-to-end run and the ceiling. */
const ROUNDS = Number(process.env.SSSF_BENCH_ROUNDS ?? 3);
const ADW_ID = "f100d000";

/** Runs the flood agent once; `rate` 0 means unpaced. Returns throughput and per-event commit latencies. */
async function ingest(rate, count = EVENTS) {
  const { dir, cleanup } = scratch("ingest");
  try {
    const db = await openTraceStore(path.join(dir, "sssf.db"));
    const latencies = [];
    const steady = [];
    let firstEmit = Number.POSITIVE_INFINITY;
    let lastCommit = 0;
    const tracer = new Tracer({
      store: db,
      eventsFile: path.join(dir, "sessions/bench/events.jsonl"),
      // Called right after each transaction commits.
      onCommit(records) {
        const committedAt = Date.now();
        lastCommit = committedAt;
        for (const record of records) {
          const emitted = Date.parse(record.row.ended_at);
          latencies.push(committedAt - emitted);
          if (emitted - firstEmit >= 1000) steady.push(committedAt - emitted);
        }
      },
    });
    const result = await execRuntime.send(
      {
        adwId: "bench",
        agent: "flood",
        sessionId: "s",
        resume: false,
        sessionDir: path.join(dir, "flood/exec_sessions"),
        rawOutputPath: path.join(dir, "flood/raw_output.jsonl"),
        model: "",
        thinking: "off",
        tools: [],
        systemPrompt: "",
        prompt: "flood",
        cwd: dir,
        command: [process.execPath, path.join(root, "bench/agents/flood.mjs"), String(count), String(rate)],
        timeouts: { idleMs: 60_000, wallMs: 600_000 },
      },
      {
        onToolCall(call) {
          firstEmit = Math.min(firstEmit, call.endedAt.getTime());
          tracer.write({
            table: "events",
            row: {
              id: newId("evt"),
              adw_id: "bench",
              phase_id: "bench-p01",
              parent_id: null,
              type: "tool_call",
              name: call.name,
              agent: "flood",
              ok: call.ok ? 1 : 0,
              started_at: call.startedAt.toISOString(),
              ended_at: call.endedAt.toISOString(),
              duration_ms: call.endedAt.getTime() - call.startedAt.getTime(),
              payload: JSON.stringify({ tool: call.tool, args: call.args, result: call.result }),
            },
          });
        },
      },
    );
    await tracer.close();
    const stored = (await db.get("SELECT count(*) AS n FROM events")).n;
    await db.close();
    if (!result.ok || stored !== count)
      throw new Error(`ingest bench: ok=${result.ok} stored=${stored} ${result.error ?? ""}`);
    return { perSecond: count / ((lastCommit - firstEmit) / 1000), latencies, steady };
  } finally {
    cleanup();
  }
}

/** A scratch repo whose one agent, `flood`, is the unpaced flood agent emitting `count` tool calls. */
function floodRepo(dir, count) {
  const command = [process.execPath, path.join(root, "bench/agents/flood.mjs"), String(count), "0"];
  benchRepo(dir, { agents: [{ name: "flood", coding_agent: "exec", command }] });
}

/**
 * `sssf run prompt flood --agent flood` (a worktree run), stdout and stderr to a file as in CI. The rate
 * is the `tool_call` rows stored over the time from the agent's first emit stamp to the sssf process's
 * exit (every row committed; the run's ending, worktree removal included, counts against it); also over
 * the time to the end of the send (the agent span's `ended_at`: every line read, parsed and handed to the
 * tracer). `events.jsonl` must hold every one of them too. `env` is added to the run's environment.
 */
async function cliIngest(count = EVENTS, env = {}) {
  const { dir, cleanup } = scratch("ingest-cli");
  try {
    floodRepo(dir, count);
    const log = openSync(path.join(dir, "sssf.log"), "w");
    const started = Date.now();
    const code = await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [cli, "run", "prompt", "flood", "--agent", "flood", "--adw-id", ADW_ID],
        {
          cwd: dir,
          stdio: ["ignore", log, log],
          env: { ...process.env, ...GIT_IDENTITY, ...env },
        },
      );
      child.on("error", reject);
      child.on("close", resolve);
    });
    const exitedAt = Date.now();
    const wallMs = exitedAt - started;
    closeSync(log);
    if (code !== 0) throw new Error(`sssf run exited ${code}; see ${path.join(dir, "sssf.log")}`);
    const db = await openTraceStore(path.join(dir, "adws/adw_data/sssf.db"), { readonly: true });
    const calls = await db.get(
      "SELECT count(*) AS n, min(started_at) AS first FROM events WHERE adw_id = ? AND type = 'tool_call'",
      [ADW_ID],
    );
    const span = await db.get("SELECT ended_at FROM events WHERE adw_id = ? AND type = 'agent_start'", [
      ADW_ID,
    ]);
    await db.close();
    const events = readFileSync(path.join(dir, `adws/adw_data/sessions/${ADW_ID}/events.jsonl`), "utf8");
    const filed = events.split('"type":"tool_call"').length - 1;
    if (calls.n !== count || filed !== count)
      throw new Error(
        `ingest bench (cli): ${calls.n} tool_call rows in the db, ${filed} in events.jsonl, of ${count}`,
      );
    const sendMs = Date.parse(span.ended_at) - Date.parse(calls.first);
    const committedMs = exitedAt - Date.parse(calls.first);
    return { perSecond: count / (committedMs / 1000), toSendEnd: count / (sendMs / 1000), wallMs };
  } finally {
    cleanup();
  }
}

/** The flood's `i`th row as the engine writes it (the agent span as parent), values in column order. */
function floodRow(i, at, span) {
  const command = `echo ${i}`;
  const row = {
    id: newId("evt"),
    adw_id: ADW_ID,
    phase_id: `${ADW_ID}-p02`,
    parent_id: span,
    type: "tool_call",
    name: `bash: ${command}`,
    agent: "flood",
    ok: 1,
    started_at: at,
    ended_at: at,
    duration_ms: 0,
    payload: JSON.stringify({ tool: "bash", args: { command }, result: String(i) }),
  };
  return columnNames("events").map((column) => row[column]);
}

/**
 * The ceiling, run in this child process (`--ceiling COUNT`): a fresh trace db with the real schema
 * (made by the store), then node:sqlite itself: the events upsert prepared once, COUNT flood rows
 * (built beforehand) inserted in one transaction. Prints `{ perSecond }`.
 */
async function ceilingChild(count) {
  const { dir, cleanup } = scratch("ingest-ceiling");
  try {
    await (await openTraceStore(path.join(dir, "sssf.db"))).close();
    const db = new DatabaseSync(path.join(dir, "sssf.db"));
    const columns = columnNames("events");
    const insert = db.prepare(
      `INSERT OR REPLACE INTO events (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    );
    const span = newId("evt");
    const at = new Date().toISOString();
    const rows = Array.from({ length: count }, (_, i) => floodRow(i, at, span));
    const started = performance.now();
    db.exec("BEGIN IMMEDIATE");
    for (const row of rows) insert.run(...row);
    db.exec("COMMIT");
    const ms = performance.now() - started;
    const stored = db.prepare("SELECT count(*) AS n FROM events").get().n;
    db.close();
    if (stored !== count) throw new Error(`ceiling: ${stored} rows stored of ${count}`);
    console.log(JSON.stringify({ perSecond: count / (ms / 1000) }));
  } finally {
    cleanup();
  }
}

function ceiling(count = EVENTS) {
  const result = spawnSync(
    process.execPath,
    [path.join(root, "bench/trace-ingest.mjs"), "--ceiling", String(count)],
    {
      encoding: "utf8",
    },
  );
  if (result.status !== 0) throw new Error(`ceiling child exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1));
}

export async function run() {
  const endToEnd = [];
  const toSendEnd = [];
  const ceilings = [];
  const walls = [];
  let driver = "";
  for (let i = 0; i < ROUNDS; i++) {
    const limit = ceiling();
    driver = limit.driver;
    ceilings.push(limit.perSecond);
    const cliRun = await cliIngest();
    endToEnd.push(cliRun.perSecond);
    toSendEnd.push(cliRun.toSendEnd);
    walls.push(cliRun.wallMs);
  }
  const typical = await ingest(1_000, 5_000);
  const paced = await ingest(RATE);
  const unpaced = await ingest(0);
  return [
    {
      label: `trace ingest end to end (sssf run, one exec agent, ${EVENTS} unpaced tool calls; first emit → sssf exited), median of ${ROUNDS}`,
      value: median(endToEnd),
      unit: "events/s",
      target: "",
    },
    {
      label: "  first emit → the send's end (rows handed to the tracer)",
      value: median(toSendEnd),
      unit: "events/s",
      target: "",
    },
    {
      label: `  ceiling: one prepared insert, one transaction, ${driver}, median of ${ROUNDS}`,
      value: median(ceilings),
      unit: "rows/s",
      target: "",
    },
    {
      label: "  ingest ÷ ceiling",
      value: median(endToEnd) / median(ceilings),
      unit: "×",
      target: "≥ 0.6",
    },
    {
      label: "  sssf run wall time, median",
      value: median(walls),
      unit: "ms",
      target: "",
    },
    {
      label: "agent stdout line → committed trace row at 1,000 events/s, p99",
      value: percentile(typical.latencies, 99),
      unit: "ms",
      target: "≤ 50",
    },
    {
      label: `trace ingest, agent paced at ${RATE} events/s, sustained`,
      value: paced.perSecond,
      unit: "events/s",
      target: "≥ 50,000",
    },
    {
      label: "  emit → committed row at that rate, p99",
      value: percentile(paced.latencies, 99),
      unit: "ms",
      target: "≤ 50",
    },
    {
      label: "  emit → committed row at that rate, median",
      value: median(paced.latencies),
      unit: "ms",
      target: "",
    },
    {
      label: "  emit → committed row at that rate, p99 after the first second",
      value: percentile(paced.steady, 99),
      unit: "ms",
      target: "",
    },
    {
      label: "trace ingest, unpaced agent (capacity)",
      value: unpaced.perSecond,
      unit: "events/s",
      target: "",
    },
    {
      label: "  emit → committed row unpaced, p99 (backlog included)",
      value: percentile(unpaced.latencies, 99),
      unit: "ms",
      target: "",
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--ceiling") {
  await ceilingChild(Number(process.argv[3] ?? EVENTS));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
