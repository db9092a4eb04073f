// The Restate cluster (docs/cluster.md) against one local sssf, on this machine, interleaved:
// - throughput: 30 two-phase runs over 3 workers (2 slots each) vs the same 30 with the local engine,
//   3 `sssf run` at a time;
// - the executor's cost per phase: (cluster 10-phase run − cluster 1-phase run) − (the same locally),
//   over the 9 extra phases (a worker's push after every phase is most of it);
// - failover: kill -9 of the worker whose agent is mid-send → the next send, on another worker.
// Every process shares the machine's 2 cores, so the cluster cannot be faster here: the figures are
// its overhead, not its scale.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { benchRepo, cli, fmt, GIT_IDENTITY, median, root, scratch } from "./lib.mjs";

const RUNS = 30;
const ROUNDS = 3;
const QUIET = { RESTATE_DISABLE_TELEMETRY: "true", DO_NOT_TRACK: "1", SCARF_ANALYTICS: "false" };
const SERVER = path.join(
  root,
  `node_modules/@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`,
);

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

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await sleep(100);
  }
  throw new Error("bench cluster: timed out");
}

function start(argv, env, cwd) {
  const child = spawn(argv[0], argv.slice(1), { cwd, env: { ...process.env, ...env }, stdio: "ignore" });
  return child;
}

function runCli(args, env, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

/** Runs `jobs` (functions returning promises) `width` at a time. */
async function limited(jobs, width) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) await jobs[next++]();
    }),
  );
}

export async function run() {
  const work = scratch("cluster");
  const { dir: base } = work;
  const repo = path.join(base, "repo");
  const remote = path.join(base, "remote.git");
  const stampFile = path.join(base, "stamps");
  const marker = path.join(base, "hung");
  mkdirSync(repo);
  writeFileSync(path.join(base, "agent.mjs"), AGENT);
  benchRepo(repo, {
    agents: [
      {
        name: "worker",
        coding_agent: "exec",
        command: [process.execPath, path.join(base, "agent.mjs"), stampFile, marker],
      },
    ],
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

  const [ingressPort, adminPort, fabricPort, poolPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const ingress = `http://127.0.0.1:${ingressPort}`;
  const admin = `http://127.0.0.1:${adminPort}`;
  const pool = `http://127.0.0.1:${poolPort}`;
  const dbPath = path.join(base, "trace.db");
  const env = {
    ...GIT_IDENTITY,
    ...QUIET,
    SSSF_DB: dbPath,
    SSSF_RESTATE_INGRESS: ingress,
    SSSF_RESTATE_ADMIN: admin,
    SSSF_POOL: pool,
  };
  const procs = [];
  procs.push(
    start(
      [
        SERVER,
        "--no-logo",
        "--listen-mode",
        "tcp",
        "--base-dir",
        path.join(base, "restate"),
        "--node-name",
        "n1",
      ],
      {
        ...QUIET,
        RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
        RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
        RESTATE_BIND_ADDRESS: `127.0.0.1:${fabricPort}`,
        RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabricPort}`,
        RESTATE_LOG_FILTER: "error",
      },
    ),
  );
  const workers = [];
  const liveWorkers = async () =>
    ((await (await fetch(`${pool}/pool/workers`)).json()).workers ?? []).filter((w) => w.live);
  const addWorker = () => {
    const n = workers.length + 1;
    const child = start(
      [
        process.execPath,
        cli,
        "worker",
        "--remote",
        remote,
        "--work-dir",
        path.join(base, `w${n}`),
        "--slots",
        "2",
      ],
      env,
      base,
    );
    workers.push(child);
    procs.push(child);
    return child;
  };
  try {
    await until(async () => (await fetch(`${admin}/health`)).ok);
    procs.push(start([process.execPath, cli, "pool", "--listen", `127.0.0.1:${poolPort}`], env, base));
    await until(async () => (await fetch(`${pool}/pool/workers`)).ok);
    for (let i = 0; i < 3; i++) addWorker();
    await until(async () => (await liveWorkers()).length === 3);

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
    const clusterBatch = async (workflowName, count) => {
      const started = performance.now();
      const ids = [];
      await limited(
        Array.from({ length: count }, () => async () => {
          const { out } = await runCli(
            ["run", workflowName, "go", "--engine", "restate", "--detach"],
            env,
            repo,
          );
          ids.push(out.trim());
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

    await clusterBatch("one", 1); // warm: clones, module caches
    const clusterWall = [];
    const localWall = [];
    const perPhase = [];
    for (let round = 0; round < ROUNDS; round++) {
      clusterWall.push(await clusterBatch("two", RUNS));
      localWall.push(await localBatch("two", RUNS, 3));
      const c10 = await clusterBatch("ten", 1);
      const l10 = await localBatch("ten", 1, 1);
      const c1 = await clusterBatch("one", 1);
      const l1 = await localBatch("one", 1, 1);
      perPhase.push((c10 - c1 - (l10 - l1)) / 9);
    }

    // Failover: the agent hangs on its first HANG send; kill -9 its worker, time the next send.
    const failovers = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (existsSync(marker)) execFileSync("rm", ["-f", marker]);
      const { out } = await runCli(["run", "one", "HANG", "--engine", "restate", "--detach"], env, repo);
      const adwId = out.trim();
      await until(async () => existsSync(marker));
      let child;
      await until(async () => {
        const holder = (await liveWorkers()).find((w) => w.runs.some((r) => r.adw_id === adwId));
        child = workers.find((w) => w.pid === holder?.pid);
        return child !== undefined;
      });
      const before = readFileSync(stampFile, "utf8").trim().split("\n").length;
      const killedAt = Date.now();
      child.kill("SIGKILL");
      await until(async () => readFileSync(stampFile, "utf8").trim().split("\n").length > before);
      failovers.push(Number(readFileSync(stampFile, "utf8").trim().split("\n")[before]) - killedAt);
      await until(async () => ended([adwId]) === 1);
      workers.splice(workers.indexOf(child), 1);
      addWorker();
      await until(async () => (await liveWorkers()).length === 3);
    }
    const c = median(clusterWall);
    const l = median(localWall);
    return [
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
      {
        label: "  cluster ÷ local (one 2-core machine: overhead, not scale)",
        value: c / l,
        unit: "×",
        target: "",
      },
      { label: "  cluster runs per minute", value: (RUNS / c) * 60_000, unit: "runs/min", target: "" },
      {
        label: "executor cost per agent phase, cluster − local, median",
        value: median(perPhase),
        unit: "ms",
        target: "",
      },
      {
        label: "failover: kill -9 of the worker → the next send on another, median",
        value: median(failovers),
        unit: "ms",
        target: "≤ 2000",
      },
    ].map((f) => ({ ...f, value: Number(fmt(f.value, 3)) }));
  } finally {
    for (const child of procs) child.kill("SIGKILL");
    await sleep(200);
    work.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
