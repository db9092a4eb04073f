// `sssf resume` on a run with 10 completed agent phases: the time from starting `sssf resume` to the
// first new agent send (the 11th phase), next to `sssf run` of the 11th phase alone (the harness's own
// start-up, a new worktree included), interleaved; the difference over 10 bounds the cost of replaying
// one completed phase.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { benchRepo, cli, fmt, GIT_IDENTITY, median, root, scratch } from "./lib.mjs";

const RUNS = 7;
const COMPLETED = 10;

const workflow = (name, steps) => `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "${name}", description: "bench", agents: ["worker"],
  async run(run, request) {
    for (let i = 1; i <= ${steps}; i++)
      await run.agent("step-" + i, { owner: "worker", description: "step" }, (phase) =>
        phase.call({ outputType: GenericOutput, prompt: request + " step " + i }));
    const last = await run.agent("final", { owner: "worker", description: "final" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "FINAL-PHASE" }));
    return run.finish({ accepted: last.status === "success", reason: last.summary });
  },
});
`;

function setUp(dir, stampFile) {
  const command = [process.execPath, path.join(root, "bench/agents/stamp.mjs"), stampFile];
  benchRepo(dir, {
    // The stamps are written outside the repo: the agent's box lets it write there.
    agents: [
      { name: "worker", coding_agent: "exec", command, sandbox: { allow_write: [path.dirname(stampFile)] } },
    ],
    files: { "adws/adw_ten.ts": workflow("ten", COMPLETED), "adws/adw_one.ts": workflow("one", 0) },
  });
  Object.assign(process.env, GIT_IDENTITY);
}

const stamps = (file) =>
  existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map(Number) : [];

/** Runs sssf with `args`; resolves with the ms from its start to the first stamp it caused, after it exits. */
function timeToFirstSend(dir, stampFile, args) {
  const before = stamps(stampFile).length;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: dir, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => {
      const first = stamps(stampFile)[before];
      if (first === undefined) reject(new Error(`sssf ${args.join(" ")} sent nothing`));
      else resolve(first - started);
    });
  });
}

export async function run() {
  const { dir, cleanup } = scratch("resume");
  // Outside the repo: the stamps must not count as the run's changes.
  const stamped = scratch("resume-stamps");
  try {
    const stampFile = path.join(stamped.dir, "stamps");
    setUp(dir, stampFile);
    // The run to resume: ten phases complete, the eleventh fails, so it can be resumed again and again.
    await timeToFirstSend(dir, stampFile, ["run", "ten", "go", "--adw-id", "b0b0b0b0"]);
    const resumed = [];
    const fresh = [];
    for (let i = 0; i < RUNS; i++) {
      resumed.push(await timeToFirstSend(dir, stampFile, ["resume", "b0b0b0b0"]));
      fresh.push(await timeToFirstSend(dir, stampFile, ["run", "one", "go"]));
    }
    const r = median(resumed);
    const f = median(fresh);
    return [
      {
        label: `sssf resume → first new send (${COMPLETED} completed phases), median`,
        value: r,
        unit: "ms",
        target: "≤ 1000",
      },
      { label: "sssf run → first send (the same phase alone), median", value: f, unit: "ms", target: "" },
      { label: "resume ÷ fresh run", value: r / f, unit: "×", target: "≤ 1.5" },
      {
        label: "replay cost per completed phase",
        value: Math.max(0, r - f) / COMPLETED,
        unit: "ms",
        target: "≤ 20",
      },
    ];
  } finally {
    cleanup();
    stamped.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
