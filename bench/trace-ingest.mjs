// Trace ingest from one agent: an exec agent floods tool_call lines; each becomes an `events` row on
// the same path a real run takes (stdout line → ToolCall → trace record → batched transaction).
// Time-to-commit is measured per event from the agent's emit stamp to its transaction's commit (the
// commit time the tracer's writer thread reports), and to the moment this thread is told of it.
import path from "node:path";
import { execRuntime } from "../dist/runtimes/exec/index.js";
import { newId, openTraceDb, Tracer } from "../dist/trace/index.js";
import { fmt, median, percentile, root, scratch } from "./lib.mjs";

const EVENTS = 200_000;
const RATE = 50_000;

/** Runs the flood agent once; `rate` 0 means unpaced. Returns throughput and per-event commit latencies. */
async function ingest(rate, count = EVENTS) {
  const { dir, cleanup } = scratch("ingest");
  try {
    const db = openTraceDb(path.join(dir, "sssf.db"));
    const latencies = [];
    const steady = [];
    let firstEmit = Number.POSITIVE_INFINITY;
    let lastCommit = 0;
    const tracer = new Tracer({
      db,
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
    tracer.close();
    const stored = db.prepare("SELECT count(*) AS n FROM events").get().n;
    db.close();
    if (!result.ok || stored !== count)
      throw new Error(`ingest bench: ok=${result.ok} stored=${stored} ${result.error ?? ""}`);
    return { perSecond: count / ((lastCommit - firstEmit) / 1000), latencies, steady };
  } finally {
    cleanup();
  }
}

export async function run() {
  const typical = await ingest(1_000, 5_000);
  const paced = await ingest(RATE);
  const unpaced = await ingest(0);
  return [
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

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
