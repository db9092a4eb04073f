// What the box costs and what it guarantees, measured in one run: the wall of a prompt run with an
// exec agent boxed (bubblewrap) ÷ the same run with SSSF_SANDBOX=off, interleaved; and the time from
// SIGKILL of sssf until no process of its agent is left (an agent that forked a daemon and sleeps),
// boxed (--die-with-parent) and unboxed (the lifeline shell). Skipped, saying so, without bubblewrap.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { benchRepo, cli, GIT_IDENTITY, median, scratch } from "./lib.mjs";

const QUICK = `process.stdin.resume(); process.stdin.on("end", () => {
  const text = JSON.stringify({ status: "success", summary: "ok", artifacts: [] });
  process.stdout.write(JSON.stringify({ type: "result", text }) + "\\n");
});`;

const DAEMON = `const { spawn } = require("node:child_process");
spawn("/bin/sh", ["-c", "sleep 300"], { detached: true, stdio: "ignore" }).unref();
setTimeout(() => {}, 600000);`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function marked(adwId) {
  const needle = Buffer.from(`SSSF_ADW_ID=${adwId}\0`);
  return readdirSync("/proc").filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z") return false;
      return readFileSync(`/proc/${entry}/environ`).includes(needle);
    } catch {
      return false;
    }
  });
}

/** ms from SIGKILL of a `sssf run` until no marked process of its agent is left. */
async function orphanTime(dir, env) {
  const child = spawn(process.execPath, [cli, "run", "prompt", "go", "--in-place"], {
    cwd: dir,
    env,
    stdio: "ignore",
  });
  const sessions = path.join(dir, "adws/adw_data/sessions");
  let adwId = "";
  for (let i = 0; i < 400 && adwId === ""; i++) {
    await sleep(25);
    const found = existsSync(sessions) ? readdirSync(sessions) : [];
    // Killed once the daemon runs: the figure is the time to end an agent and what it left behind.
    const sleeping = (pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "latin1").startsWith("sleep");
      } catch {
        return false;
      }
    };
    const candidate = found.find((id) => marked(id).some(sleeping));
    if (candidate) adwId = candidate;
  }
  if (adwId === "") throw new Error("the agent never started");
  child.kill("SIGKILL");
  const killed = performance.now();
  while (marked(adwId).length > 0 && performance.now() - killed < 10_000) await sleep(2);
  const took = performance.now() - killed;
  spawnSync("rm", ["-rf", sessions]);
  return took;
}

export async function run() {
  const works = spawnSync("bwrap", ["--ro-bind", "/", "/", "--", "/bin/sh", "-c", ":"]).status === 0;
  if (!works) {
    console.log("  (bubblewrap cannot make a sandbox here: skipped)");
    return [];
  }
  const { dir, cleanup } = scratch("sandbox");
  try {
    const quick = path.join(dir, "quick.mjs");
    const daemon = path.join(dir, "daemon.cjs");
    writeFileSync(quick, QUICK);
    writeFileSync(daemon, DAEMON);
    const repo = path.join(dir, "repo");
    benchRepo(repo, {
      agents: [
        { name: "quick", coding_agent: "exec", command: [process.execPath, quick] },
        { name: "daemon", coding_agent: "exec", command: [process.execPath, daemon] },
      ],
    });
    const env = { ...process.env, ...GIT_IDENTITY, NO_COLOR: "1" };
    const once = (extra) => {
      const started = performance.now();
      const result = spawnSync(process.execPath, [cli, "run", "prompt", "go", "--agent", "quick"], {
        cwd: repo,
        env: { ...env, ...extra },
        stdio: "ignore",
      });
      if (result.status !== 0) throw new Error(`sssf run exited ${result.status}`);
      return performance.now() - started;
    };
    const boxed = [];
    const open = [];
    once({});
    for (let i = 0; i < 9; i++) {
      boxed.push(once({}));
      open.push(once({ SSSF_SANDBOX: "off" }));
    }
    // The daemon agent is the only one the orphan runs use.
    writeFileSync(
      path.join(repo, "adws/adw_sssf_config/sssf.config.yaml"),
      JSON.stringify({
        agents: [{ name: "daemon", coding_agent: "exec", command: [process.execPath, daemon] }],
      }),
    );
    const orphanBoxed = [];
    const orphanLifeline = [];
    for (let i = 0; i < 5; i++) {
      orphanBoxed.push(await orphanTime(repo, env));
      orphanLifeline.push(await orphanTime(repo, { ...env, SSSF_SANDBOX: "off" }));
    }
    return [
      { label: "prompt run boxed, median", value: median(boxed), unit: "ms" },
      { label: "prompt run unboxed, median", value: median(open), unit: "ms" },
      { label: "boxed ÷ unboxed (paired medians)", value: median(boxed) / median(open), unit: "x" },
      {
        label: "SIGKILL of sssf → agent and daemon gone, boxed, median",
        value: median(orphanBoxed),
        unit: "ms",
        target: "≤ 1000",
      },
      {
        label: "same, unboxed (lifeline), median",
        value: median(orphanLifeline),
        unit: "ms",
        target: "≤ 1000",
      },
      {
        label: "worst of both",
        value: Math.max(...orphanBoxed, ...orphanLifeline),
        unit: "ms",
        target: "≤ 1000",
      },
    ];
  } finally {
    cleanup();
  }
}
