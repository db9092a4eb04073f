// A flood of tool calls through one phase: `sssf run prompt` (a worktree run, stdout to a file as in
// CI) whose exec agent streams 200,000 tool_call lines as fast as it can. No event may be lost: the
// run's events.jsonl and the SQLite trace must each hold exactly 200,000 tool calls. Memory must be
// bounded: the sssf process's own peak RSS (its VmHWM, read at exit by a preloaded probe) against the
// same run with 20,000 calls; ~1 × means flat. Also the wall of each. Runs interleaved, medians.
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { benchRepo, cli, GIT_IDENTITY, median, printFigures, root, scratch } from "./lib.mjs";

const CALLS = Number(process.env.SSSF_BENCH_FLOOD_CALLS ?? 200_000);
const SMALL = CALLS / 10;
const ROUNDS = Number(process.env.SSSF_BENCH_ROUNDS ?? 1);
const ADW_ID = "f100d200";
const probe = path.join(root, "bench/agents/usage-probe.mjs");

/** Tool calls of the run in events.jsonl (each row id once: a record may be rewritten). */
function filedCalls(repo) {
  const ids = new Set();
  const text = readFileSync(path.join(repo, `adws/adw_data/sessions/${ADW_ID}/events.jsonl`), "utf8");
  for (const line of text.split("\n")) {
    if (!line.includes('"tool_call"')) continue;
    const record = JSON.parse(line);
    if (record.table === "events" && record.row.type === "tool_call") ids.add(record.row.id);
  }
  return ids.size;
}

/** Tool calls of the run in the SQLite trace, read with Node's own driver. */
function storedCalls(repo) {
  const db = new DatabaseSync(path.join(repo, "adws/adw_data/sssf.db"), { readOnly: true });
  try {
    return db.prepare("SELECT count(*) AS n FROM events WHERE adw_id = ? AND type = 'tool_call'").get(ADW_ID)
      .n;
  } finally {
    db.close();
  }
}

/** One flood of `count` calls in a fresh repo: wall, sssf's peak RSS and CPU, the calls kept in each record. */
async function flood(count) {
  const { dir, cleanup } = scratch("flood");
  try {
    const command = [process.execPath, path.join(root, "bench/agents/flood.mjs"), String(count), "0"];
    benchRepo(dir, { agents: [{ name: "flood", coding_agent: "exec", command }] });
    const usageFile = path.join(dir, "usage.jsonl");
    const logFile = path.join(dir, "sssf.log");
    const log = openSync(logFile, "w");
    const started = performance.now();
    const code = await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--import", probe, cli, "run", "prompt", "flood", "--agent", "flood", "--adw-id", ADW_ID],
        {
          cwd: dir,
          stdio: ["ignore", log, log],
          env: { ...process.env, ...GIT_IDENTITY, SSSF_BENCH_USAGE: usageFile },
        },
      );
      child.on("error", reject);
      child.on("close", resolve);
    });
    const wall = performance.now() - started;
    closeSync(log);
    if (code !== 0)
      throw new Error(`flood bench: sssf run exited ${code}: ${readFileSync(logFile, "utf8").slice(-2000)}`);
    const usage = JSON.parse(readFileSync(usageFile, "utf8").trim().split("\n")[0]);
    return {
      wall,
      rss: usage.max_rss_bytes / 1e6,
      cpu: usage.cpu_ms,
      filed: filedCalls(dir),
      stored: storedCalls(dir),
    };
  } finally {
    cleanup();
  }
}

export async function run() {
  const big = [];
  const small = [];
  for (let i = 0; i < ROUNDS; i++) {
    small.push(await flood(SMALL));
    big.push(await flood(CALLS));
  }
  const lost = (runs, count) => Math.max(...runs.map((r) => Math.max(count - r.filed, count - r.stored)));
  const extra = (runs, count) => Math.max(...runs.map((r) => Math.max(r.filed - count, r.stored - count)));
  const lostCalls = lost(big, CALLS) + lost(small, SMALL);
  const extraCalls = extra(big, CALLS) + extra(small, SMALL);
  if (lostCalls > 0 || extraCalls > 0)
    process.stderr.write(
      `flood bench: events LOST or doubled: ${JSON.stringify({ big, small }, ["filed", "stored"])}\n`,
    );
  const m = (runs, key) => median(runs.map((r) => r[key]));
  const figure = (key, label, value, unit, target = "") => ({ key, label, value, unit, target });
  return [
    figure("calls", "tool calls in the flood", CALLS, ""),
    figure(
      "events_jsonl_calls",
      "  tool calls in events.jsonl (fewest of the rounds)",
      Math.min(...big.map((r) => r.filed)),
      "",
    ),
    figure(
      "sqlite_calls",
      "  tool calls in the SQLite trace (fewest of the rounds)",
      Math.min(...big.map((r) => r.stored)),
      "",
    ),
    figure("lost_events", "  events lost, both floods", lostCalls, "", "= 0"),
    figure("extra_events", "  events counted twice, both floods", extraCalls, "", "= 0"),
    figure("wall_ms", "  wall of the sssf run, median", m(big, "wall"), "ms"),
    figure("calls_per_s", "  tool calls per second of wall", CALLS / (m(big, "wall") / 1000), "events/s"),
    figure("cpu_ms", "  sssf's own CPU, median", m(big, "cpu"), "ms"),
    figure("peak_rss_mb", "  sssf's peak RSS, median", m(big, "rss"), "MB", "≤ 150"),
    figure("small_calls", `the same with ${SMALL} calls`, SMALL, ""),
    figure("small_wall_ms", "  wall, median", m(small, "wall"), "ms"),
    figure("small_peak_rss_mb", "  sssf's peak RSS, median", m(small, "rss"), "MB"),
    figure("rss_ratio", `peak RSS, ${CALLS} ÷ ${SMALL} calls`, m(big, "rss") / m(small, "rss"), "×", "≤ 1.5"),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) printFigures(await run());
