// The write boundary around one send of a worktree run whose checkout has a big `node_modules`
// (linked into the worktree, so fingerprinted and stored by the boundary): the first checkpoint of a run,
// which stores every file up to 1 MiB in git; then checkpoint + settle of a send that wrote nothing there,
// and of one that rewrote 10 package files (each put back). `SSSF_BENCH_FILES` sets the tree's size.
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { walkListing } from "../dist/boundary/trees/tree-listing.js";
import { WriteBoundary } from "../dist/boundary/write-boundary.js";
import { BoundarySends } from "../dist/boundary/write-boundary-sends.js";
import { fmt, median, percentile, scratch } from "./lib.mjs";

const FILES = Number(process.env.SSSF_BENCH_FILES ?? 20_000);
const PER_PACKAGE = 20;
const SENDS = 11;

const git = (cwd, ...args) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "bench",
      GIT_AUTHOR_EMAIL: "bench@sssf.invalid",
      GIT_COMMITTER_NAME: "bench",
      GIT_COMMITTER_EMAIL: "bench@sssf.invalid",
    },
  });

/** `FILES` files in packages of 20 (package.json, index.js, lib/*.js), 200 B to 12 KB each. */
function generateModules(dir) {
  let bytes = 0;
  const files = [];
  for (let i = 0; files.length < FILES; i++) {
    const pkg = path.join(dir, `pkg-${String(i).padStart(5, "0")}`);
    mkdirSync(path.join(pkg, "lib"), { recursive: true });
    for (let j = 0; j < PER_PACKAGE && files.length < FILES; j++) {
      const name = j === 0 ? "package.json" : j === 1 ? "index.js" : `lib/part-${j}.js`;
      const size = 200 + ((i * 7919 + j * 104_729) % 12_000);
      const line = `module.exports.p${i}_${j} = ${JSON.stringify(name)};\n`;
      const content = line.repeat(Math.ceil(size / line.length)).slice(0, size);
      writeFileSync(path.join(pkg, name), content);
      files.push(path.join(pkg, name));
      bytes += size;
    }
  }
  return { files, bytes };
}

const timed = async (work) => {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
};

export async function run() {
  const { dir, cleanup } = scratch("boundary-linked");
  try {
    const checkout = path.join(dir, "checkout");
    mkdirSync(path.join(checkout, "src"), { recursive: true });
    writeFileSync(path.join(checkout, "README.md"), "# bench\n");
    writeFileSync(path.join(checkout, "src/main.ts"), "export const main = 1;\n");
    writeFileSync(path.join(checkout, ".gitignore"), "node_modules\nadws/adw_data/\n");
    git(checkout, "init", "-q");
    git(checkout, "add", "-A");
    git(checkout, "commit", "-q", "-m", "start");
    const { files, bytes } = generateModules(path.join(checkout, "node_modules"));
    const worktree = path.join(checkout, "adws/adw_data/.worktrees/bench");
    git(checkout, "worktree", "add", "-q", "-b", "bench", worktree);
    symlinkSync("../../../../node_modules", path.join(worktree, "node_modules"), "dir");

    // One boundary per run: a new one (with its own registry) starts with no listing in memory.
    const newRun = () =>
      new WriteBoundary({
        root: worktree,
        writes: ["src/**"],
        protectedFiles: [],
        exclude: () => ["node_modules"],
        ownPaths: [],
        checkout,
        checkoutExclude: () => ["adws/adw_data"],
        sends: new BoundarySends(),
      });
    let boundary = newRun();
    const send = async (write) => {
      const checkpoint = await timed(() => boundary.checkpoint());
      // The writes happen during a shell tool call: what the boundary puts on the agent.
      const startedAt = new Date();
      write();
      const shell = {
        tool: "bash",
        name: "bash",
        args: {},
        result: "",
        ok: true,
        startedAt,
        endedAt: new Date(),
      };
      const settle = await timed(() => checkpoint.value.settle([shell]));
      return { checkpoint: checkpoint.ms, settle: settle.ms, breaches: settle.value };
    };

    const first = await send(() => {});
    if (first.breaches.length > 0) throw new Error(`unexpected breaches: ${JSON.stringify(first.breaches)}`);
    const objects = Number(git(checkout, "count-objects", "-v").match(/size: (\d+)/)?.[1] ?? 0) / 1024;

    const idle = [];
    const idleCheckpoint = [];
    for (let i = 0; i < SENDS; i++) {
      const one = await send(() => {});
      idle.push(one.checkpoint + one.settle);
      idleCheckpoint.push(one.checkpoint);
    }
    const restoring = [];
    for (let i = 0; i < SENDS; i++) {
      const one = await send(() => {
        for (let k = 0; k < 10; k++) writeFileSync(files[(i * 997 + k * 1901) % files.length], "pwned\n");
      });
      if (one.breaches.length !== 10 || !one.breaches.every((b) => b.restored))
        throw new Error(`expected 10 restored breaches, got ${JSON.stringify(one.breaches)}`);
      restoring.push(one.checkpoint + one.settle);
    }
    boundary = newRun();
    const later = await send(() => {});
    const walks = [];
    for (let i = 0; i < SENDS; i++) {
      const started = performance.now();
      walkListing(path.join(checkout, "node_modules"), { maxEntries: 200_000 });
      walks.push(performance.now() - started);
    }
    const mib = (bytes / 1024 / 1024).toFixed(0);
    return [
      {
        label: `first checkpoint of a run (stores ${files.length} files, ${mib} MiB, in git)`,
        value: first.checkpoint,
        unit: "ms",
        target: "",
      },
      { label: "loose objects written by it", value: objects, unit: "MiB", target: "" },
      {
        label: "first checkpoint of a later run (the blobs are in git already: read and hashed, not written)",
        value: later.checkpoint,
        unit: "ms",
        target: "",
      },
      {
        label: "checkpoint + settle of a send that wrote nothing there, median",
        value: median(idle),
        unit: "ms",
        target: "≤ 250",
      },
      { label: "… p95", value: percentile(idle, 95), unit: "ms", target: "" },
      { label: "… of which the checkpoint, median", value: median(idleCheckpoint), unit: "ms", target: "" },
      {
        label: "checkpoint + settle of a send that rewrote 10 package files (all put back), median",
        value: median(restoring),
        unit: "ms",
        target: "",
      },
      { label: "one stat walk of the tree, median", value: median(walks), unit: "ms", target: "" },
    ];
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await run()) console.log(`${f.label}: ${fmt(f.value)} ${f.unit}`);
}
