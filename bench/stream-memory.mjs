// Resident memory of sssf while one agent streams 1 GB of output through the exec runtime (stdout line
// splitting, raw_output.jsonl, tool_call parsing). Runs in a child process so its peak RSS is its own.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fmt, root, scratch } from "./lib.mjs";

const BYTES = 1024 ** 3;

const child = `
import path from "node:path";
import { execRuntime } from "${path.join(root, "dist/runtimes/exec/index.js")}";
const dir = process.argv[1];
let samples = 0, peak = 0, calls = 0;
const timer = setInterval(() => { samples++; peak = Math.max(peak, process.memoryUsage().rss); }, 50);
const started = performance.now();
const result = await execRuntime.send({
  adwId: "bench", agent: "firehose", sessionId: "s", resume: false,
  sessionDir: path.join(dir, "exec_sessions"), rawOutputPath: path.join(dir, "raw_output.jsonl"),
  model: "", thinking: "off", tools: [], systemPrompt: "", prompt: "go", cwd: dir,
  command: [process.execPath, "${path.join(root, "bench/agents/firehose.mjs")}", "${BYTES}"],
  timeouts: { idleMs: 60000, wallMs: 900000 },
}, { onToolCall() { calls++; } });
clearInterval(timer);
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ ok: result.ok, error: result.error, peak, maxRss: process.resourceUsage().maxRSS * 1024, seconds, calls }));
`;

export async function run() {
  const { dir, cleanup } = scratch("memory");
  try {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", child, dir], {
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`stream-memory child failed: ${result.stderr}`);
    const figures = JSON.parse(result.stdout.trim().split("\n").pop());
    if (!figures.ok) throw new Error(`stream-memory send failed: ${figures.error}`);
    return [
      {
        label: "peak resident memory while an agent streams 1 GB",
        value: figures.maxRss / 1024 ** 2,
        unit: "MB",
        target: "< 150",
      },
      {
        label: "throughput of that stream (incl. raw_output.jsonl)",
        value: BYTES / 1024 ** 2 / figures.seconds,
        unit: "MB/s",
        target: "",
      },
      { label: "tool_call lines parsed from it", value: figures.calls, unit: "calls", target: "" },
    ];
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
