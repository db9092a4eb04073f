// The harness's own cost of a run, each figure as the ratio it is judged by, measured in one run and
// interleaved with its baseline (a bare `node -e 0`) on a noisy machine:
// - per single-agent run: wall − the agent process's lifetime (real pi against the fake model), and
//   how much of that comes before the session row is written;
// - one more agent phase: the phase's traced duration − its agent process's lifetime;
// - a commit code phase: its traced duration;
// - the sssf process's own peak RSS in a prompt run;
// - the sssf process's own CPU per run when 16 runs start at once on one repository.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openTraceStore } from "../dist/trace/index.js";
import { benchRepo, cli, fmt, GIT_IDENTITY, median, root, scratch, sssf } from "./lib.mjs";

const ROUNDS = 7;
const CONCURRENT = 16;
const piBinary = path.join(root, "node_modules/.bin/pi");
const probe = path.join(root, "bench/agents/usage-probe.mjs");

const REPORT = JSON.stringify({ status: "success", summary: "ok", artifacts: [] });

// Two agent phases, then a commit of what the first agent wrote.
const TWO_PHASES = `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "two", description: "bench: two agent phases and a commit", agents: ["helper", "writer"],
  async run(run, request) {
    await run.agent("write", { owner: "writer", description: "write" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    await run.agent("second", { owner: "helper", description: "second" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "TURN second" }));
    await run.code("commit", { description: "commit" }, (phase) => phase.commit("bench: commit"));
    return run.finish({ accepted: true, reason: "ok" });
  },
});
`;

// An exec agent that writes one file and answers at once (a shell, not a Node start).
const WRITER = `cat >/dev/null; date +%s%N > "written-$$.txt"; printf '%s\\n' '${JSON.stringify({
  type: "result",
  text: REPORT,
})}'`;
const INSTANT = `cat >/dev/null; printf '%s\\n' '${JSON.stringify({ type: "result", text: REPORT })}'`;

function setUp(dir) {
  const exec = (name, script) => ({ name, coding_agent: "exec", command: ["sh", "-c", script] });
  const agents = [
    { name: "helper", coding_agent: "pi", command: [piBinary] },
    exec("writer", WRITER),
    exec("instant", INSTANT),
  ];
  benchRepo(dir, { agents, files: { "adws/adw_two.ts": TWO_PHASES } });
  Object.assign(process.env, GIT_IDENTITY);
}

/** Starts `sssf fake-model` in its own process; resolves with the env its `export` lines print. */
function startFakeModel(dir) {
  const script = path.join(dir, "script.json");
  writeFileSync(
    script,
    JSON.stringify({ steps: [{ match: { text: "TURN" }, reply: REPORT, repeat: true }] }),
  );
  const server = spawn(
    process.execPath,
    [cli, "fake-model", "--script", script, "--pi-dir", path.join(dir, "pi")],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    server.on("error", reject);
    server.stdout.on("data", (chunk) => {
      out += chunk;
      if (!out.includes("# pi:")) return;
      const env = { PI_OFFLINE: "1", PI_TELEMETRY: "0" };
      for (const line of out.split("\n").filter((l) => l.startsWith("export "))) {
        for (const pair of line.slice("export ".length).split(" ")) {
          const [key = "", ...value] = pair.split("=");
          env[key] = value.join("=").replace(/^'|'$/g, "");
        }
      }
      resolve({ env, stop: () => server.kill("SIGTERM") });
    });
  });
}

const nodeStart = () => {
  const started = performance.now();
  spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" });
  return performance.now() - started;
};

/** One `sssf run …` in `repo` (through lib.mjs's `sssf`); resolves with its wall ms and its adw_id. */
async function sssfRun(repo, env, args, { usageFile } = {}) {
  const startedAt = Date.now();
  const { code, wall, stdout, stderr } = await sssf(repo, [...args, "--json"], {
    env: { ...env, ...(usageFile ? { SSSF_BENCH_USAGE: usageFile } : {}) },
    node: usageFile ? ["--import", probe] : [],
  });
  if (code !== 0) throw new Error(`sssf ${args.join(" ")} exited ${code}: ${stderr}`);
  return { wall, startedAt, adwId: JSON.parse(stdout).adw_id };
}

const ms = (iso) => Date.parse(iso);

/** The trace's figures of one run: session start, and per phase its duration and its agent's lifetime. */
async function traced(db, adwId) {
  const session = await db.get("SELECT started_at FROM sessions WHERE adw_id = ?", [adwId]);
  const phases = await db.all(
    "SELECT id, name, duration_ms FROM phases WHERE adw_id = ? ORDER BY started_at",
    [adwId],
  );
  const processes = await db.all("SELECT phase_id, started_at, ended_at FROM processes WHERE adw_id = ?", [
    adwId,
  ]);
  const lifetime = (phaseId) =>
    processes
      .filter((p) => phaseId === undefined || p.phase_id === phaseId)
      .reduce((sum, p) => sum + ms(p.ended_at) - ms(p.started_at), 0);
  return { sessionAt: ms(session.started_at), phases, lifetime };
}

const usageLines = (file) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

export async function run() {
  const { dir, cleanup } = scratch("overhead");
  const repo = path.join(dir, "repo");
  mkdirSync(repo);
  setUp(repo);
  const fake = await startFakeModel(dir);
  try {
    const db = await openTraceStore(path.join(repo, "adws/adw_data/sssf.db"));
    const prompt = ["run", "prompt", "TURN hello", "--agent", "helper"];
    await sssfRun(repo, fake.env, prompt); // warm the file cache and the trace
    const node = [];
    const harness = [];
    const beforeSession = [];
    const phaseExtra = [];
    const commit = [];
    const rss = [];
    for (let i = 0; i < ROUNDS; i++) {
      node.push(nodeStart());
      const single = await sssfRun(repo, fake.env, prompt);
      const one = await traced(db, single.adwId);
      harness.push(single.wall - one.lifetime());
      beforeSession.push(one.sessionAt - single.startedAt);
      node.push(nodeStart());
      const two = await sssfRun(repo, fake.env, ["run", "two", "go"]);
      const t = await traced(db, two.adwId);
      const second = t.phases.find((p) => p.name === "second");
      phaseExtra.push(second.duration_ms - t.lifetime(second.id));
      commit.push(t.phases.find((p) => p.name === "commit").duration_ms);
      node.push(nodeStart());
      const usageFile = path.join(dir, `usage-${i}.jsonl`);
      await sssfRun(repo, fake.env, prompt, { usageFile });
      rss.push(usageLines(usageFile)[0].max_rss_bytes / 1e6);
    }
    // 16 runs at once with an instant agent: the CPU of each sssf process itself.
    const concurrentFile = path.join(dir, "usage-concurrent.jsonl");
    const instant = ["run", "prompt", "go", "--agent", "instant"];
    await Promise.all(
      Array.from({ length: CONCURRENT }, () => sssfRun(repo, {}, instant, { usageFile: concurrentFile })),
    );
    const cpu = usageLines(concurrentFile).map((line) => line.cpu_ms);
    const bare = median(node);
    await db.close();
    return [
      { label: "node -e 0 on this machine now, median", value: bare, unit: "ms", target: "" },
      {
        label: "harness work per single-agent run (wall − pi's lifetime), median",
        value: median(harness),
        unit: "ms",
        target: "",
      },
      { label: "  ÷ node -e 0", value: median(harness) / bare, unit: "×", target: "≤ 2" },
      {
        label: "  of which start-up before the session row",
        value: median(beforeSession),
        unit: "ms",
        target: "",
      },
      {
        label: "one more agent phase (phase − its agent's lifetime), median",
        value: median(phaseExtra),
        unit: "ms",
        target: "≤ 8",
      },
      { label: "commit code phase, median", value: median(commit), unit: "ms", target: "≤ 10" },
      {
        label: "peak RSS of the sssf process, prompt run, median",
        value: median(rss),
        unit: "MB",
        target: "≤ 55",
      },
      {
        label: `CPU of each sssf process, ${CONCURRENT} runs at once on one repo, median`,
        value: median(cpu),
        unit: "ms",
        target: "≤ 150",
      },
    ];
  } finally {
    fake.stop();
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
