import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repoFacts } from "../../src/code/git-facts.js";
import { loadConfig } from "../../src/config/load-config.js";
import { BUILTIN_RUNTIME_IDS } from "../../src/runtimes/builtins.js";
import { planWorkspace } from "../../src/workspace/run-workspace-plan.js";
import { addWorktree, removeWorktree, repoOf } from "../../src/workspace/worktree.js";
import { git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
const scratch: string[] = [];
afterEach(() => {
  world?.cleanup();
  world = undefined;
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function plan(w: WorktreeWorld, adwId: string) {
  const config = loadConfig({ cwd: w.dir, knownRuntimes: BUILTIN_RUNTIME_IDS });
  return planWorkspace({
    config,
    adwId,
    inPlace: false,
    base: undefined,
    merge: false,
    carryDirty: false,
    workflow: "prompt",
    existing: undefined,
  });
}

describe("the run's branches, read with the checkout in one look", () => {
  it("refuses an id any workflow's branch has, and only those", async () => {
    world = new WorktreeWorld([]);
    // Look-alikes: another id, a deeper folder, a prefix of the id.
    for (const branch of ["sssf/abc123x", "sssf/xabc123", "sssf/a/b/abc123", "sssf/plan/abc1234"])
      git(world.dir, ["branch", branch]);
    await expect(plan(world, "abc123")).resolves.toMatchObject({
      action: "create",
      branch: "sssf/prompt/abc123",
    });

    git(world.dir, ["branch", "sssf/build/abc123"]);
    await expect(plan(world, "abc123")).rejects.toThrow(
      "--adw-id abc123: the branch sssf/build/abc123 already exists but no session has that id",
    );
    git(world.dir, ["branch", "-D", "sssf/build/abc123"]);
    git(world.dir, ["branch", "sssf/abc123"]);
    await expect(plan(world, "abc123")).rejects.toThrow("the branch sssf/abc123 already exists");
  });
});

describe("what sssf keeps of a worktree's git locations", () => {
  it("is forgotten when the worktree is removed and added again, where git gives it another git dir", async () => {
    world = new WorktreeWorld([]);
    const repo = await repoOf(world.dir);
    if (repo === null) throw new Error("no repository");
    const parent = realpathSync(mkdtempSync(path.join(tmpdir(), "sssf-facts-")));
    scratch.push(parent);
    const worktree = path.join(parent, "wt");
    await addWorktree(repo, worktree, "sssf/prompt/facts1", world.base);
    const first = await repoFacts(worktree);
    expect(first?.gitDir).toBe(path.join(repo.commonDir, "worktrees", "wt"));
    expect(first?.topLevel).toBe(worktree);

    await removeWorktree(repo, worktree, true);
    expect(await repoFacts(worktree)).toBeNull();
    // Another worktree takes the name `wt` in the repository's records: the same path comes back as `wt1`.
    const other = path.join(parent, "elsewhere", "wt");
    mkdirSync(path.dirname(other), { recursive: true });
    await addWorktree(repo, other, "sssf/prompt/facts2", world.base);
    await addWorktree(repo, worktree, "sssf/prompt/facts3", world.base);
    expect((await repoFacts(worktree))?.gitDir).toBe(path.join(repo.commonDir, "worktrees", "wt1"));
    expect(git(worktree, ["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe("sssf/prompt/facts3");
  });
});
