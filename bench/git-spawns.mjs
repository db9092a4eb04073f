// How many git processes sssf spawns: one `sssf run prompt` in its own worktree (plan, worktree,
// the write boundary around one send, the end of the run), and one `commit` code phase after an agent
// wrote a file. Each spawn costs ~4–5 ms of wall time and ~1.3 ms of the sssf process's CPU. Counted
// through a `git` on PATH that logs its arguments and runs the real one; exec agents, so no model.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { benchRepo, cli, GIT_IDENTITY, scratch } from "./lib.mjs";

/** Answers success once its prompt is read; with an argument, first writes that file in its cwd. */
const AGENT = `import { writeFileSync } from "node:fs";
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  if (process.argv[2]) writeFileSync(process.argv[2], "written by the agent\\n");
  const text = JSON.stringify({ status: "success", summary: "ok", artifacts: [] });
  process.stdout.write(JSON.stringify({ type: "result", text }) + "\\n");
});
`;

/** An agent phase writing out.txt, then a `commit` code phase; the phase's commit is marked in the log. */
const COMMIT_WORKFLOW = `import { appendFileSync } from "node:fs";
import { defineWorkflow, GenericOutput } from "sssf";
const mark = (line) => appendFileSync(process.env.BENCH_GIT_LOG, line + "\\n");
export default defineWorkflow({
  name: "spawns", description: "bench", agents: ["helper"],
  async run(run, request) {
    await run.agent("write", { owner: "helper", description: "write" }, (phase) =>
      phase.call({ outputType: GenericOutput, prompt: request }));
    const made = await run.code("commit", { owner: "git", description: "commit" }, async (phase) => {
      mark("--- commit start");
      const result = await phase.commit("Add out.txt");
      mark("--- commit end");
      return result;
    });
    return run.finish({ accepted: made !== null, reason: made ? "committed" : "nothing to commit" });
  },
});
`;

/** A `git` that logs each call's arguments to $BENCH_GIT_LOG and runs the real git. */
function gitWrapper(binDir) {
  const real = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();
  if (real === "") throw new Error("git is not on PATH");
  mkdirSync(binDir, { recursive: true });
  const wrapper = path.join(binDir, "git");
  writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> "$BENCH_GIT_LOG"\nexec ${real} "$@"\n`);
  chmodSync(wrapper, 0o755);
}

/** A repo with one commit whose one exec agent, `helper`, runs `agentFile agentArgs…`. */
function repo(dir, agentFile, agentArgs, files = {}) {
  const command = [process.execPath, agentFile, ...agentArgs];
  benchRepo(dir, {
    agents: [{ name: "helper", coding_agent: "exec", command }],
    files: { "README.md": "hello\n", ...files },
  });
}

/** Runs the CLI in `dir` with the logging git first on PATH; returns the logged lines. */
function logged(dir, binDir, log, args) {
  writeFileSync(log, "");
  const env = {
    ...process.env,
    ...GIT_IDENTITY,
    PATH: `${binDir}${path.delimiter}${process.env.PATH}`,
    BENCH_GIT_LOG: log,
  };
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: dir, env, encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`sssf ${args.join(" ")} exited ${result.status}: ${result.stdout}${result.stderr}`);
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
}

export async function run() {
  const { dir, cleanup } = scratch("git-spawns");
  try {
    const binDir = path.join(dir, "bin");
    gitWrapper(binDir);
    const agent = path.join(dir, "agent.mjs");
    writeFileSync(agent, AGENT);
    const log = path.join(dir, "git.log");

    const promptRepo = path.join(dir, "prompt");
    mkdirSync(promptRepo);
    repo(promptRepo, agent, []);
    const prompt = logged(promptRepo, binDir, log, ["run", "prompt", "hello", "--agent", "helper"]);

    const commitRepo = path.join(dir, "commit");
    mkdirSync(commitRepo);
    repo(commitRepo, agent, ["out.txt"], { "adws/adw_spawns.mjs": COMMIT_WORKFLOW });
    const whole = logged(commitRepo, binDir, log, ["run", "spawns", "write a file"]);
    const start = whole.indexOf("--- commit start");
    const end = whole.indexOf("--- commit end");
    if (start < 0 || end < start) throw new Error("the commit phase left no marks in the log");
    const commit = whole.slice(start + 1, end);
    const spawnsOfRun = whole.filter((line) => !line.startsWith("--- ")).length;

    return [
      {
        label: "git spawns of one sssf run prompt in a worktree",
        value: prompt.length,
        unit: "spawns",
        target: "≤ 18",
      },
      { label: "git spawns of one commit code phase", value: commit.length, unit: "spawns", target: "≤ 8" },
      {
        label: "git spawns of the whole write-then-commit run",
        value: spawnsOfRun,
        unit: "spawns",
        target: "",
      },
    ];
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run())
    console.log(`${f.label}: ${f.value} ${f.unit}${f.target ? ` (target ${f.target})` : ""}`);
}
