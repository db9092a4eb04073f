// Resident memory of sssf while one agent streams 1 GB of output through the exec runtime (stdout line
// splitting, raw_output.jsonl, tool_call parsing), as many lines and as one line (capped to its head and
// tail). Each case runs in a child process so its peak RSS is its own.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fmt, root, scratch } from "./lib.mjs";

const BYTES = 1024 ** 3;

const child = `
import path from "node:path";
import { execRuntime } from "${path.join(root, "dist/runtimes/exec/index.js")}";
const [dir, agent] = process.argv.slice(1);
let samples = 0, peak = 0, calls = 0, logs = [];
const timer = setInterval(() => { samples++; peak = Math.max(peak, process.memoryUsage().rss); }, 50);
const started = performance.now();
const result = await execRuntime.send({
  adwId: "bench", agent: "firehose", sessionId: "s", resume: false,
  sessionDir: path.join(dir, "exec_sessions"), rawOutputPath: path.join(dir, "raw_output.jsonl"),
  model: "", thinking: "off", tools: [], systemPrompt: "", prompt: "go", cwd: dir,
  command: [process.execPath, agent, "${BYTES}"],
  timeouts: { idleMs: 60000, wallMs: 900000 },
}, { onToolCall() { calls++; }, onLog(message) { logs.push(message); } });
clearInterval(timer);
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ ok: result.ok, error: result.error, peak, maxRss: process.resourceUsage().maxRSS * 1024, seconds, calls, logs }));
`;

/** Streams one agent's BYTES through the exec runtime in a child process; returns its figures. */
function measure(agent) {
  const { dir, cleanup } = scratch("memory");
  try {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", child, dir, agent], {
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`stream-memory child failed: ${result.stderr}`);
    const figures = JSON.parse(result.stdout.trim().split("\n").pop());
    if (!figures.ok) throw new Error(`stream-memory send failed: ${figures.error}`);
    return figures;
  } finally {
    cleanup();
  }
}

export async function run() {
  const lines = measure(path.join(root, "bench/agents/firehose.mjs"));
  const line = measure(path.join(root, "bench/agents/one-line.mjs"));
  if (!line.logs.some((message) => message.startsWith("stdout line of "))) {
    throw new Error(`stream-memory: the 1 GB line was not capped (logs: ${line.logs.join("; ")})`);
  }
  return [
    {
      label: "peak resident memory while an agent streams 1 GB",
      value: lines.maxRss / 1024 ** 2,
      unit: "MB",
      target: "< 150",
    },
    {
      label: "throughput of that stream (incl. raw_output.jsonl)",
      value: BYTES / 1024 ** 2 / lines.seconds,
      unit: "MB/s",
      target: "",
    },
    { label: "tool_call lines parsed from it", value: lines.calls, unit: "calls", target: "" },
    {
      label: "peak resident memory while an agent prints one 1 GB line (capped)",
      value: line.maxRss / 1024 ** 2,
      unit: "MB",
      target: "< 300",
    },
    {
      label: "that peak over the line's size",
      value: (100 * line.maxRss) / BYTES,
      unit: "%",
      target: "< 30",
    },
    { label: "throughput of that line", value: BYTES / 1024 ** 2 / line.seconds, unit: "MB/s", target: "" },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
