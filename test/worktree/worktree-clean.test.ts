import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom } from "../helpers/sandbox.js";
import { buildTurn, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

async function finishedRun(w: WorktreeWorld, label: string): Promise<string> {
  w.script([buildTurn(label, `Add ${label}`)]);
  const result = await w.run(["run", "build", `add ${label}`]);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return adwIdFrom(result.stdout);
}

describe("sssf clean", () => {
  it("removes finished worktrees, skips dirty and running ones, keeps every branch with a commit", async () => {
    world = new WorktreeWorld([]);
    const done = await finishedRun(world, "done");
    const dirty = await finishedRun(world, "dirty");
    const running = await finishedRun(world, "running");
    writeFileSync(path.join(world.worktree(dirty), "unsaved.txt"), "work in progress\n");
    // A live process (this test) holds the third session's lock, as a running sssf would.
    const lockFile = path.join(world.sb.sessionDir(running), ".lock");
    writeFileSync(lockFile, JSON.stringify({ pid: process.pid, host: hostname(), started_at: "now" }));
    // A stray folder that is no worktree is named, never touched.
    mkdirSync(path.join(world.dir, "adws/adw_data/.worktrees/stray"));

    const dry = await world.run(["clean", "--dry-run"]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    const dryLines = dry.stdout.trim().split("\n");
    expect(dryLines).toContain(
      `would remove adws/adw_data/.worktrees/${done} (branch sssf/build/${done} kept)`,
    );
    expect(dryLines.find((l) => l.includes(dirty))).toMatch(
      /^skipped .*1 uncommitted change \(unsaved\.txt\)/,
    );
    expect(dryLines.find((l) => l.includes(running))).toMatch(
      /^skipped .*running \(pid \d+ holds the session\)/,
    );
    expect(dryLines.find((l) => l.includes("stray"))).toMatch(/^skipped .*not a worktree/);
    for (const id of [done, dirty, running]) expect(existsSync(world.worktree(id))).toBe(true);

    const clean = await world.run(["clean"]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).toContain(
      `removed adws/adw_data/.worktrees/${done} (branch sssf/build/${done} kept)`,
    );
    expect(clean.stdout).toContain("branches with commits are kept");
    expect(existsSync(world.worktree(done))).toBe(false);
    expect(existsSync(world.worktree(dirty))).toBe(true);
    expect(existsSync(world.worktree(running))).toBe(true);
    // The checkout's node_modules, linked into each worktree, survives the removal.
    expect(existsSync(path.join(world.dir, "node_modules/dep/index.js"))).toBe(true);

    const forced = await world.run(["clean", "--force"]);
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`removed adws/adw_data/.worktrees/${dirty}`);
    expect(forced.stdout).toMatch(new RegExp(`skipped adws/adw_data/.worktrees/${running} \\(running`));
    expect(existsSync(world.worktree(dirty))).toBe(false);
    expect(existsSync(world.worktree(running))).toBe(true);

    const branches = git(world.dir, ["branch", "--list", "sssf/*", "--format=%(refname:short)"])
      .trim()
      .split("\n");
    expect(branches.sort()).toEqual([done, dirty, running].map((id) => `sssf/build/${id}`).sort());
    expect(git(world.dir, ["worktree", "list", "--porcelain"])).not.toContain(`.worktrees/${done}`);

    // The run ends and its folder is deleted by hand: git's stale record is pruned.
    rmSync(lockFile);
    rmSync(world.worktree(running), { recursive: true, force: true });
    const pruned = await world.run(["clean"]);
    expect(pruned.stdout).toContain(
      `pruned adws/adw_data/.worktrees/${running} (its folder was already gone; branch sssf/build/${running} kept)`,
    );
    expect(git(world.dir, ["worktree", "list", "--porcelain"])).not.toContain(`.worktrees/${running}`);
  });

  it("is a usage error outside git", async () => {
    world = new WorktreeWorld([], { git: false });
    const result = await world.run(["clean"]);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toContain("is not a git work tree");
  });
});
