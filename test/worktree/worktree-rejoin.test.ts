import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson } from "../helpers/sandbox.js";
import { buildTurn, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const secondTurn = (file: string, message: string) => ({
  tool_calls: [{ tool: "write", write_file: { path: file, content: `${file}\n` } }],
  reply: envelopeJson({ summary: `wrote ${file}`, changed_files: [file], commit_message: message }),
});

describe("rejoining a worktree run", () => {
  it("reuses the same worktree and branch, and re-adds it from the branch after clean", async () => {
    world = new WorktreeWorld([buildTurn()]);
    const first = await world.run(["run", "build", "add the feature"]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const adwId = adwIdFrom(first.stdout);
    const worktree = world.worktree(adwId);
    const branch = `sssf/build/${adwId}`;
    // Something only this worktree has: a rejoin in a fresh folder would not see it.
    writeFileSync(path.join(worktree, "scratch.txt"), "left by the first run\n");

    const badBase = await world.run(["run", "build", "more", "--adw-id", adwId, "--base", "main"]);
    expect(badBase.code, badBase.stdout + badBase.stderr).toBe(2);
    expect(badBase.stderr).toContain(`--base: session ${adwId} already has its branch ${branch}`);
    const badInPlace = await world.run(["run", "build", "more", "--adw-id", adwId, "--in-place"]);
    expect(badInPlace.code, badInPlace.stdout + badInPlace.stderr).toBe(2);

    world.script([secondTurn("src/second.js", "Add the second file")]);
    const second = await world.run(["run", "build", "add a second file", "--adw-id", adwId]);
    expect(second.stderr).toBe("");
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain("(joined)");
    expect(world.session(adwId)).toMatchObject({ worktree, branch, base_ref: world.base, cwd: worktree });
    expect(readFileSync(path.join(worktree, "scratch.txt"), "utf8")).toBe("left by the first run\n");
    // The worktree is the run's own: what it held uncommitted is committed with the rejoin's change.
    expect(git(world.dir, ["show", "--name-only", "--format=%s", branch]).trim().split("\n")).toEqual([
      "Add the second file",
      "",
      "scratch.txt",
      "src/second.js",
    ]);
    expect(git(world.dir, ["worktree", "list"]).split("\n").filter(Boolean)).toHaveLength(2);

    const clean = await world.run(["clean"]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(existsSync(worktree)).toBe(false);
    world.script([secondTurn("src/third.js", "Add the third file")]);
    const third = await world.run(["run", "build", "add a third file", "--adw-id", adwId]);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toContain(`worktree re-added from the branch ${branch}`);
    expect(existsSync(path.join(worktree, "src/second.js"))).toBe(true);
    expect(
      git(world.dir, ["log", "--format=%s", `${world.base}..${branch}`])
        .trim()
        .split("\n"),
    ).toEqual(["Add the third file", "Add the second file", "Add the feature"]);
    const events = world.sb.query<{ name: string }>(
      "SELECT name FROM events WHERE adw_id = ? AND name LIKE 'worktree %' ORDER BY started_at",
      adwId,
    );
    expect(events.map((e) => e.name.split(":")[0])).toEqual([
      "worktree created",
      "worktree reused",
      "worktree recreated",
    ]);

    // Deleted by hand, without git knowing: the stale record is pruned and the worktree re-added.
    rmSync(worktree, { recursive: true, force: true });
    world.script([secondTurn("src/fourth.js", "Add the fourth file")]);
    const fourth = await world.run(["run", "build", "add a fourth file", "--adw-id", adwId]);
    expect(fourth.code, fourth.stdout + fourth.stderr).toBe(0);
    expect(fourth.stdout).toContain(`worktree re-added from the branch ${branch}`);
    expect(git(world.dir, ["log", "-1", "--format=%s", branch]).trim()).toBe("Add the fourth file");
  });

  it("keeps an in-place session in place", async () => {
    world = new WorktreeWorld([buildTurn("here", "Add here")]);
    const first = await world.run(["run", "build", "add it", "--in-place"]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const adwId = adwIdFrom(first.stdout);
    world.script([secondTurn("src/second.js", "Add the second file here")]);
    const second = await world.run(["run", "build", "more", "--adw-id", adwId]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(world.session(adwId)).toMatchObject({ worktree: null, branch: null, cwd: world.dir });
    expect(existsSync(path.join(world.dir, "src/second.js"))).toBe(true);
    expect(existsSync(path.join(world.dir, "adws/adw_data/.worktrees"))).toBe(false);
    const merge = await world.run(["run", "build", "more", "--adw-id", adwId, "--merge"]);
    expect(merge.code, merge.stdout + merge.stderr).toBe(2);
    expect(merge.stderr).toContain(`--merge: session ${adwId} ran in place`);
  });
});
