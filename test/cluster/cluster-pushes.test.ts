import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { replyTurn, writeTurn } from "../resume/resume-world.js";
import { git } from "../worktree/worktree-world.js";
import { ClusterWorld, pollUntil, sharedRestate } from "./cluster-world.js";

// What a worker pushes, counted by the remote itself (a post-receive hook logs each push it takes):
// only what a failover reads, and only when it changed.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });
const restate = sharedRestate();
let world: ClusterWorld | undefined;
afterEach(async () => {
  await world?.cleanup();
  world = undefined;
});

const waitFor = (check: () => boolean | Promise<boolean>, ms?: number) =>
  pollUntil(check, () => world?.logs() ?? "", ms);

const succeeded = (adwId: string) => () =>
  world?.query("SELECT 1 FROM sessions WHERE adw_id = ? AND status = 'success'", adwId).length === 1;

/** Installs `hook` in the remote, executable. */
function hook(w: ClusterWorld, name: string, script: string): void {
  const file = path.join(w.remote, "hooks", name);
  writeFileSync(file, script);
  chmodSync(file, 0o755);
}

/** The remote logs every push it accepts: one line per push, the refs it updated. */
function countPushes(w: ClusterWorld): () => string[] {
  const log = path.join(w.scratch, "pushes.log");
  hook(
    w,
    "post-receive",
    `#!/bin/sh\nrefs=""\nwhile read old new ref; do refs="$refs $ref"; done\necho "push$refs" >> ${JSON.stringify(log)}\n`,
  );
  // Each push's refs sorted: git sends them in no set order.
  const sorted = (line: string) => ["push", ...line.split(" ").slice(1).sort()].join(" ");
  return () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map(sorted) : []);
}

// Both probes of the worktree (work-tree-probe.ts): the reference and the workers' fast path.
describe.each(["status", "plain"])("what a worker pushes (%s probe)", (probe) => {
  it("pushes after a phase that changed files and after a commit, never after phases that changed nothing", async () => {
    world = new ClusterWorld(
      {
        // one: an agent phase that writes a file; two: one that changes nothing on top of that
        // uncommitted work; then the commit, the suite (a code phase without a commit) and three
        // (changes nothing).
        first: [writeTurn("notes.md", "planned")],
        second: [replyTurn("checked")],
        third: [replyTurn("reviewed")],
      },
      { restate, workerEnv: { SSSF_WORKER_TREE_PROBE: probe } },
    );
    const pushes = countPushes(world);
    await world.start(1);
    const adwId = `pushes-${probe}`;
    const ran = await world.cli(["run", "three", "add a feature", "--engine", "restate", "--adw-id", adwId]);
    expect(ran.code, `${ran.stdout}\n${ran.stderr}\n${world.logs()}`).toBe(0);
    expect(world.phases(adwId)).toEqual([
      "one:success",
      "two:success",
      "commit:success",
      "test:success",
      "three:success",
    ]);
    const branch = `sssf/three/${adwId}`;
    // Two pushes: one's uncommitted work (the wip ref), then the commit (the branch, and the wip ref
    // dropped, in one atomic push). Nothing after two, the suite, three, or at the end.
    expect(pushes(), world.logs()).toEqual([
      `push refs/sssf/wip/${adwId}`,
      `push refs/heads/${branch} refs/sssf/wip/${adwId}`,
    ]);
    expect(git(world.remote, ["log", "--format=%s", `main..${branch}`]).trim()).toBe("Resume test: checked");
    expect(git(world.remote, ["show", `${branch}:notes.md`])).toBe("planned\n");
    expect(git(world.remote, ["for-each-ref", "refs/sssf/"]).trim()).toBe("");
  });
});

describe("kill -9 right after a tree-changing phase ends", () => {
  it("while its push is in flight: the next worker runs that phase again on the last pushed work; one commit", async () => {
    world = new ClusterWorld(
      {
        first: [writeTurn("notes.md", "planned")],
        // Asked twice: the first answer's push never lands, so its phase is not journaled.
        second: [writeTurn("src/feature.js", "built"), writeTurn("src/feature.js", "built")],
        third: [replyTurn("reviewed")],
      },
      { restate },
    );
    const pushes = countPushes(world);
    // The push of two's work (the second push to the wip ref) waits until the test killed its worker,
    // then the remote refuses it: the worker died between the phase's end and its push completing.
    const blocked = path.join(world.scratch, "push-blocked");
    const killed = path.join(world.scratch, "worker-killed");
    const seen = path.join(world.scratch, "wip-pushes");
    hook(
      world,
      "pre-receive",
      `#!/bin/sh
if grep -q refs/sssf/wip/; then
  echo x >> ${JSON.stringify(seen)}
  if [ "$(wc -l < ${JSON.stringify(seen)})" -eq 2 ]; then
    touch ${JSON.stringify(blocked)}
    while [ ! -e ${JSON.stringify(killed)} ]; do sleep 0.1; done
    exit 1
  fi
fi
exit 0
`,
    );
    await world.start(2);
    const adwId = "push-kill";
    const submitted = await world.cli([
      "run",
      "three",
      "add a feature",
      "--engine",
      "restate",
      "--adw-id",
      adwId,
      "--detach",
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const first = await world.workerRunning(adwId);
    await waitFor(() => existsSync(blocked));
    expect(world.sends("second")).toBe(1);
    await first.kill("SIGKILL");
    writeFileSync(killed, "");
    await waitFor(succeeded(adwId));
    const phases = world.phases(adwId);
    // one is replayed (its work was pushed and journaled); two runs again, live, on one's work.
    expect(phases[0], world.logs()).toBe("one:success+r");
    expect(phases.slice(-4)).toEqual(["two:success", "commit:success", "test:success", "three:success"]);
    expect([world.sends("first"), world.sends("second"), world.sends("third")]).toEqual([1, 2, 1]);
    const branch = `sssf/three/${adwId}`;
    expect(git(world.remote, ["log", "--format=%s", `main..${branch}`]).trim()).toBe("Resume test: built");
    expect(git(world.remote, ["show", `${branch}:notes.md`])).toBe("planned\n");
    expect(git(world.remote, ["show", `${branch}:src/feature.js`])).toBe("built\n");
    // Accepted pushes: one's work by the killed worker; two's work and the commit by the next.
    expect(pushes()).toEqual([
      `push refs/sssf/wip/${adwId}`,
      `push refs/sssf/wip/${adwId}`,
      `push refs/heads/${branch} refs/sssf/wip/${adwId}`,
    ]);
  });
});
