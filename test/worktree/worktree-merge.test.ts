import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom } from "../helpers/sandbox.js";
import { buildTurn, checkoutFingerprint, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const rev = (dir: string, ref: string) => git(dir, ["rev-parse", ref]).trim();

describe("--merge", () => {
  it("fast-forwards the checked-out base branch in the checkout when the run is accepted", async () => {
    world = new WorktreeWorld([buildTurn()]);
    const result = await world.run(["run", "build", "add the feature", "--merge"]);
    expect(result.stderr).toBe("");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.phases(adwId)).toEqual([
      "request:success",
      "build:success",
      "commit:success",
      "merge:success",
    ]);
    expect(rev(world.dir, "main")).toBe(rev(world.dir, `sssf/build/${adwId}`));
    // The checkout moved with its branch: the merge ran there.
    expect(readFileSync(path.join(world.dir, "src/feature.js"), "utf8")).toContain("feature");
    expect(git(world.dir, ["status", "--porcelain"]).trim()).toBe("");
    expect(result.stdout).toContain(`merged: main fast-forwarded to sssf/build/${adwId}`);
    const [phase] = world.sb.query<{ kind: string; owner: string }>(
      "SELECT kind, owner FROM phases WHERE adw_id = ? AND name = 'merge'",
      adwId,
    );
    expect(phase).toEqual({ kind: "code", owner: "git" });
  });

  it("moves a base branch that is not checked out with update-ref, and nothing else", async () => {
    world = new WorktreeWorld([buildTurn()]);
    git(world.dir, ["branch", "release"]);
    const before = checkoutFingerprint(world.dir);
    const result = await world.run(["run", "build", "add the feature", "--base", "release", "--merge"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(rev(world.dir, "release")).toBe(rev(world.dir, `sssf/build/${adwId}`));
    expect(rev(world.dir, "main")).toBe(world.base);
    const after = checkoutFingerprint(world.dir);
    expect({ ...after, refs: [] }).toEqual({ ...before, refs: [] });
    expect(existsSync(path.join(world.dir, "src/feature.js"))).toBe(false);
  });

  it("reports git's refusal, keeps the run accepted, and exits 1", async () => {
    world = new WorktreeWorld([buildTurn()]);
    writeFileSync(path.join(world.dir, "src/app.js"), 'export const app = "operator edit";\n');
    const result = await world.run(["run", "build", "add the feature", "--merge"]);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const adwId = adwIdFrom(result.stdout);
    expect(world.session(adwId)).toMatchObject({ status: "success", accepted: 1 });
    expect(world.phases(adwId).at(-1)).toBe("merge:fail");
    const [phase] = world.sb.query<{ error: string }>(
      "SELECT error FROM phases WHERE adw_id = ? AND name = 'merge'",
      adwId,
    );
    expect(phase?.error).toContain("merge refused: git merge --ff-only refused:");
    expect(phase?.error).toContain("src/app.js");
    expect(rev(world.dir, "main")).toBe(world.base);
    expect(readFileSync(path.join(world.dir, "src/app.js"), "utf8")).toBe(
      'export const app = "operator edit";\n',
    );
  });

  it("needs a local branch to move: a tag, a commit or a detached HEAD is a usage error", async () => {
    world = new WorktreeWorld([buildTurn()]);
    git(world.dir, ["tag", "v1"]);
    const tag = await world.run(["run", "build", "x", "--base", "v1", "--merge"]);
    expect(tag.code, tag.stdout + tag.stderr).toBe(2);
    expect(tag.stderr).toContain('--merge: --base "v1" is not a local branch');
    git(world.dir, ["checkout", "-q", "--detach"]);
    const detached = await world.run(["run", "build", "x", "--merge"]);
    expect(detached.code, detached.stdout + detached.stderr).toBe(2);
    expect(detached.stderr).toContain("--merge: HEAD is detached");
    const inPlace = await world.run(["run", "build", "x", "--merge", "--in-place"]);
    expect(inPlace.code, inPlace.stdout + inPlace.stderr).toBe(2);
    expect(existsSync(path.join(world.dir, "adws/adw_data/sessions"))).toBe(false);
  });
});
