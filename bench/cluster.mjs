// The Restate cluster (docs/cluster.md) against one local sssf, on this machine, interleaved, each
// cluster figure paired: "before" is the worker of another revision (BENCH_CLUSTER_BEFORE, default
// main; empty: none), built in a scratch worktree, "after" this checkout's dist/:
// - the executor's cost per phase: (cluster 10-phase run − cluster 1-phase run) − (the same locally),
//   over the 9 extra phases, each round measuring before, after and local one after the other; and
//   the same from the trace, less noisy: the median phase-to-phase pitch (one phase's start to the
//   next's) of the 10-phase runs, cluster − local;
// - failover: kill -9 of the worker whose agent is mid-send → the next send, on another worker;
// - throughput (this checkout only): BENCH_CLUSTER_RUNS (30) two-phase runs over 3 workers (2 slots
//   each) vs the same with the local engine, 3 `sssf run` at a time.
// Every process shares the machine's cores, so the cluster cannot be faster here: the figures are its
// overhead, not its scale. The bench's agents run in sssf's sandbox where there is one (bubblewrap):
// they stamp their sends in a folder the config lets them write (sandbox.allow_write).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  buildRevision,
  freePort,
  limited,
  QUIET,
  removeRevision,
  runCli,
  sleep,
  start,
  startRestate,
  submit,
  until,
} from "./cluster-world.mjs";
import { benchRepo, cli, fmt, GIT_IDENTITY, median, scratch } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_CLUSTER_RUNS ?? 30);
const ROUNDS = 3;
const BEFORE = process.env.BENCH_CLUSTER_BEFORE ?? "main";

const workflow = (name, steps) => `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "${name}", description: "bench", agents: ["worker"],
  async run(run, request) {
    let last;
    for (let i = 1; i <= ${steps}; i++)
      last = await run.agent("step-" + i, { owner: "worker", description: "step" }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: request + " step " + i }));
    return run.finish({ accepted: last.status === "success", reason: last.summary });
  },
});
`;

// Stamps each send; hangs (until killed) on the first send whose prompt says HANG while MARKER is absent.
const AGENT = `import { appendFileSync, existsSync, writeFileSync } from "node:fs";
const [stampFile, marker] = process.argv.slice(2);
appendFileSync(stampFile, Date.now() + "\\n");
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => { input += c; });
process.stdin.on("end", () => {
  if (input.includes("HANG") && !existsSync(marker)) { writeFileSync(marker, ""); setInterval(() => {}, 1000); return; }
  const text = JSON.stringify({ status: "success", summary: "done", artifacts: [] });
  process.stdout.write(JSON.stringify({ type: "result", text }) + "\\n");
});
`;

export async function run() {
  const work = scratch("cluster");
  const { dir: base } = work;
  const repo = path.join(base, "repo");
  const remote = path.join(base, "remote.git");
  // The one folder the boxed agents may write besides their worktree: their stamps and the marker.
  const stamps = path.join(base, "stamps");
  const stampFile = path.join(stamps, "sends");
  const marker = path.join(stamps, "hung");
  mkdirSync(repo);
  mkdirSync(stamps);
  writeFileSync(stampFile, "");
  writeFileSync(path.join(base, "agent.mjs"), AGENT);
  const agents = [
    {
      name: "worker",
      coding_agent: "exec",
      command: [process.execPath, path.join(base, "agent.mjs"), stampFile, marker],
    },
  ];
  benchRepo(repo, {
    agents,
    config: { agents, sandbox: { allow_write: [stamps] } },
    files: {
      "adws/adw_two.ts": workflow("two", 2),
      "adws/adw_ten.ts": workflow("ten", 10),
      "adws/adw_one.ts": workflow("one", 1),
    },
  });
  const git = (cwd, ...args) =>
    execFileSync("git", args, { cwd, stdio: "ignore", env: { ...process.env, ...GIT_IDENTITY } });
  // The workers read the prompts from the commit: only sssf's own files stay out of git.
  writeFileSync(
    path.join(repo, ".gitignore"),
    "adws/adw_data/sessions/\nadws/adw_data/.worktrees/\nadws/adw_data/*.db*\n",
  );
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "prompts");
  git(base, "clone", "-q", "--bare", repo, remote);

  const builds = [];
  if (BEFORE !== "") builds.push({ name: "before", cli: buildRevision(BEFORE, path.join(base, "before")) });
  builds.push({ name: "after", cli });

  const restate = await startRestate(base);
  const poolPort = await freePort();
  const pool = `http://127.0.0.1:${poolPort}`;
  const dbPath = path.join(base, "trace.db");
  const env = {
    ...GIT_IDENTITY,
    ...QUIET,
    SSSF_DB: dbPath,
    SSSF_RESTATE_INGRESS: restate.ingress,
    SSSF_RESTATE_ADMIN: restate.admin,
    SSSF_POOL: pool,
  };
  const procs = [restate.proc];
  let workers = [];
  let spawned = 0;
  const liveWorkers = async () =>
    ((await (await fetch(`${pool}/pool/workers`)).json()).workers ?? []).filter((w) => w.live);
  const livePids = async () => new Set((await liveWorkers()).map((w) => w.pid));
  const addWorker = (build) => {
    spawned++;
    const child = start(
      [
        process.execPath,
        build.cli,
        "worker",
        "--remote",
        remote,
        "--work-dir",
        path.join(base, `w${spawned}`),
      ],
      env,
      base,
    );
    workers.push(child);
    procs.push(child);
    return child;
  };
  const threeLive = async () => {
    await until(async () => {
      const live = await livePids();
      return workers.filter((w) => live.has(w.pid)).length === 3;
    });
  };
  // Three workers of `build` instead of the ones there were, warmed by a run on each.
  const useWorkers = async (build) => {
    const old = workers;
    workers = [];
    for (const child of old) child.kill("SIGTERM");
    await until(async () => {
      const live = await livePids();
      return old.every((w) => !live.has(w.pid));
    });
    for (let i = 0; i < 3; i++) addWorker(build);
    await threeLive();
    await clusterBatch("one", 6, build);
  };

  const { DatabaseSync } = await import("node:sqlite");
  const ended = (ids) => {
    if (!existsSync(dbPath)) return 0;
    const db = new DatabaseSync(dbPath, { readOnly: true });
    try {
      const rows = db.prepare("SELECT adw_id FROM sessions WHERE status IN ('success', 'fail')").all();
      return rows.filter((r) => ids.includes(r.adw_id)).length;
    } finally {
      db.close();
    }
  };
  // The 10-phase run's phase-to-phase pitches (start to next start) and the gaps between phases (end
  // to next start: where the worker probes the tree, pushes and journals), ms, from its trace.
  const pitches = (db, adwId, gaps) => {
    const d = new DatabaseSync(db, { readOnly: true });
    try {
      const id =
        adwId ??
        d.prepare("SELECT adw_id FROM sessions WHERE workflow = 'ten' ORDER BY started_at DESC LIMIT 1").get()
          .adw_id;
      const rows = d
        .prepare(
          "SELECT started_at, ended_at FROM phases WHERE adw_id = ? AND replayed_at IS NULL ORDER BY number",
        )
        .all(id);
      const starts = rows.map((row) => Date.parse(row.started_at));
      gaps.push(...starts.slice(1).map((start, i) => start - Date.parse(rows[i].ended_at)));
      return starts.slice(1).map((start, i) => start - starts[i]);
    } finally {
      d.close();
    }
  };
  let lastIds = [];
  const clusterBatch = async (workflowName, count, build) => {
    const started = performance.now();
    const ids = [];
    lastIds = ids;
    await limited(
      Array.from({ length: count }, () => async () => {
        ids.push(await submit(build.cli, ["run", workflowName, "go"], env, repo));
      }),
      6,
    );
    await until(async () => ended(ids) === count, 600_000);
    return performance.now() - started;
  };
  const localBatch = async (workflowName, count, width) => {
    const started = performance.now();
    await limited(
      Array.from({ length: count }, () => async () => {
        const { code } = await runCli(
          cli,
          ["run", workflowName, "go"],
          { ...GIT_IDENTITY, SSSF_DB: path.join(base, "local.db") },
          repo,
        );
        if (code !== 0) throw new Error(`local run exited ${code}`);
      }),
      width,
    );
    return performance.now() - started;
  };
  const sends = () => readFileSync(stampFile, "utf8").trim().split("\n").filter(Boolean);
  // The agent hangs on its first HANG send; kill -9 its worker, time the next send.
  const failover = async (build) => {
    rmSync(marker, { force: true });
    const adwId = await submit(build.cli, ["run", "one", "HANG"], env, repo);
    await until(async () => existsSync(marker));
    let child;
    await until(async () => {
      const holder = (await liveWorkers()).find((w) => w.runs.some((r) => r.adw_id === adwId));
      child = workers.find((w) => w.pid === holder?.pid);
      return child !== undefined;
    });
    const before = sends().length;
    const killedAt = Date.now();
    child.kill("SIGKILL");
    await until(async () => sends().length > before);
    const ms = Number(sends()[before]) - killedAt;
    await until(async () => ended([adwId]) === 1);
    workers.splice(workers.indexOf(child), 1);
    addWorker(build);
    await threeLive();
    return ms;
  };

  try {
    procs.push(start([process.execPath, cli, "pool", "--listen", `127.0.0.1:${poolPort}`], env, base));
    await until(async () => (await fetch(`${pool}/pool/workers`)).ok);
    const perPhase = Object.fromEntries(builds.map((b) => [b.name, []]));
    const pitch = Object.fromEntries([...builds.map((b) => [b.name, []]), ["local", []]]);
    const gap = Object.fromEntries([...builds.map((b) => [b.name, []]), ["local", []]]);
    const failovers = Object.fromEntries(builds.map((b) => [b.name, []]));
    await localBatch("one", 1, 1); // warm: module caches
    for (let round = 0; round < ROUNDS; round++) {
      const l10 = await localBatch("ten", 1, 1);
      pitch.local.push(...pitches(path.join(base, "local.db"), undefined, gap.local));
      const l1 = await localBatch("one", 1, 1);
      for (const build of builds) {
        await useWorkers(build);
        const c10 = await clusterBatch("ten", 1, build);
        pitch[build.name].push(...pitches(dbPath, lastIds[0], gap[build.name]));
        const c1 = await clusterBatch("one", 1, build);
        perPhase[build.name].push((c10 - c1 - (l10 - l1)) / 9);
        failovers[build.name].push(await failover(build));
      }
    }
    const after = builds.at(-1);
    await useWorkers(after);
    const clusterWall = [];
    const localWall = [];
    for (let round = 0; round < ROUNDS; round++) {
      clusterWall.push(await clusterBatch("two", RUNS, after));
      localWall.push(await localBatch("two", RUNS, 3));
    }
    const c = median(clusterWall);
    const l = median(localWall);
    const figures = [];
    for (const build of builds) {
      figures.push(
        {
          label: `executor cost per agent phase, cluster − local, median (${build.name})`,
          value: median(perPhase[build.name]),
          unit: "ms",
          target: build.name === "after" ? "≤ 20 (quiet machine)" : "",
        },
        {
          label: `  the same from the trace: median phase-to-phase pitch, cluster − local (${build.name})`,
          value: median(pitch[build.name]) - median(pitch.local),
          unit: "ms",
          target: build.name === "after" ? "≤ 20 (quiet machine)" : "",
        },
        {
          label: `    of which between phases (end → next start), cluster − local (${build.name})`,
          value: median(gap[build.name]) - median(gap.local),
          unit: "ms",
          target: "",
        },
        {
          label: `failover: kill -9 of the worker → the next send on another, median (${build.name})`,
          value: median(failovers[build.name]),
          unit: "ms",
          target: build.name === "after" ? "≤ 2000" : "",
        },
      );
    }
    if (builds.length === 2)
      figures.push(
        {
          label: "  per-phase cost after ÷ before",
          value: median(perPhase.after) / median(perPhase.before),
          unit: "×",
          target: "",
        },
        {
          label: "  failover after ÷ before",
          value: median(failovers.after) / median(failovers.before),
          unit: "×",
          target: "",
        },
      );
    figures.push(
      {
        label: `${RUNS} two-phase runs over 3 workers (2 slots each), median wall`,
        value: c,
        unit: "ms",
        target: "",
      },
      {
        label: `the same ${RUNS} with the local engine, 3 at a time, median wall`,
        value: l,
        unit: "ms",
        target: "",
      },
      { label: "  cluster ÷ local (one machine: overhead, not scale)", value: c / l, unit: "×", target: "" },
      { label: "  cluster runs per minute", value: (RUNS / c) * 60_000, unit: "runs/min", target: "" },
    );
    if (process.env.BENCH_CLUSTER_RAW === "1")
      console.error(JSON.stringify({ perPhase, failovers, pitch, gap }));
    return figures.map((f) => ({ ...f, value: Number(fmt(f.value, 3)) }));
  } finally {
    for (const child of procs) child.kill("SIGKILL");
    await sleep(200);
    if (builds.length === 2) removeRevision(path.join(base, "before"));
    work.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
