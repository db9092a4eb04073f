// `sssf replay` on stored runs: RUNS (50; SSSF_BENCH_REPLAY_RUNS) recorded runs of a three-phase
// workflow (an agent, a suite, an agent; exec agents), replayed at once with `--since`: runs per second
// over the whole command (its start-up included) and inside it (its own `elapsed_ms`), and one run
// replayed alone, median of 5.
import path from "node:path";
import { benchRepo, median, root, scratch, sssf } from "./lib.mjs";

const RUNS = Number(process.env.SSSF_BENCH_REPLAY_RUNS ?? 50);
const AT_ONCE = 3;

const WORKFLOW = `import { defineWorkflow, GenericOutput } from "sssf";
export default defineWorkflow({
  name: "trio", description: "bench", agents: ["worker"], suites: ["test"],
  async run(run, request) {
    const one = await run.agent("one", { owner: "worker", description: "one" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    await run.code("test", { owner: "quality", description: "test" }, (phase) => phase.runSuite("test"));
    const two = await run.agent("two", { owner: "worker", description: "two" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: "after " + one.summary }));
    return run.finish({ accepted: two.status === "success", reason: two.summary });
  },
});
`;

export async function run() {
  const { dir, cleanup } = scratch("replay");
  const stamps = scratch("replay-stamps");
  try {
    const stampFile = path.join(stamps.dir, "stamps");
    const command = [process.execPath, path.join(root, "bench/agents/stamp.mjs"), stampFile];
    benchRepo(dir, {
      agents: [],
      config: {
        agents: [{ name: "worker", coding_agent: "exec", command, sandbox: { allow_write: [stamps.dir] } }],
        quality: { test: { command: [process.execPath, "-e", "0"], timeout_seconds: 60 } },
      },
      files: {
        "adws/adw_trio.ts": WORKFLOW,
        "adws/adw_data/prompt_engineering/worker/system.md":
          "Do the task, then reply with the JSON report.\n",
        "adws/adw_data/prompt_engineering/worker/user.md": "{{prompt}}\n",
      },
    });
    for (let started = 0; started < RUNS; started += AT_ONCE) {
      const batch = [];
      for (let i = started; i < Math.min(RUNS, started + AT_ONCE); i++)
        batch.push(sssf(dir, ["run", "trio", `run ${i}`, "--in-place"]));
      for (const done of await Promise.all(batch))
        if (done.code !== 0) throw new Error(`recording failed: ${done.stderr || done.stdout}`);
    }
    const all = await sssf(dir, ["replay", "--since", "1d", "--json"]);
    const report = JSON.parse(all.stdout);
    if (all.code !== 0 || report.replays.length !== RUNS)
      throw new Error(`replay of ${RUNS} runs: exit ${all.code}, ${report.replays?.length} replayed`);
    const one = report.replays[0].adw_id;
    const alone = [];
    for (let i = 0; i < 5; i++) alone.push((await sssf(dir, ["replay", one, "--json"])).wall);
    return [
      { label: `${RUNS} stored runs replayed by one sssf replay, wall`, value: all.wall, unit: "ms" },
      { label: "runs per second, the command's wall", value: RUNS / (all.wall / 1000), unit: "runs/s" },
      {
        label: "runs per second, inside the command",
        value: RUNS / (report.elapsed_ms / 1000),
        unit: "runs/s",
        target: "≥ 10",
      },
      {
        label: "one run replayed alone (sssf replay <adw_id>), median of 5",
        value: median(alone),
        unit: "ms",
      },
    ];
  } finally {
    cleanup();
    stamps.cleanup();
  }
}
