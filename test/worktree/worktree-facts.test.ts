import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { addedWorktreeFacts, forgetRepoFacts, repoFacts } from "../../src/code/git-facts.js";
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

/** A repository (the world's checkout) and an empty real folder for its worktrees, removed after the test. */
async function repoAndFolder(prefix: string) {
  world = new WorktreeWorld([]);
  const repo = await repoOf(world.dir);
  if (repo === null) throw new Error("no repository");
  const parent = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  scratch.push(parent);
  return { w: world, repo, parent };
}

describe("what sssf keeps of a worktree's git locations", () => {
  it("is forgotten when the worktree is removed and added again, where git gives it another git dir", async () => {
    const { w, repo, parent } = await repoAndFolder("sssf-facts-");
    const worktree = path.join(parent, "wt");
    await addWorktree(repo, worktree, "sssf/prompt/facts1", w.base);
    const first = await repoFacts(worktree);
    expect(first?.gitDir).toBe(path.join(repo.commonDir, "worktrees", "wt"));
    expect(first?.topLevel).toBe(worktree);

    await removeWorktree(repo, worktree, true);
    expect(await repoFacts(worktree)).toBeNull();
    // Another worktree takes the name `wt` in the repository's records: the same path comes back as `wt1`.
    const other = path.join(parent, "elsewhere", "wt");
    mkdirSync(path.dirname(other), { recursive: true });
    await addWorktree(repo, other, "sssf/prompt/facts2", w.base);
    await addWorktree(repo, worktree, "sssf/prompt/facts3", w.base);
    expect((await repoFacts(worktree))?.gitDir).toBe(path.join(repo.commonDir, "worktrees", "wt1"));
    expect(git(worktree, ["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe("sssf/prompt/facts3");
  });
});

describe("a worktree sssf adds: its git locations without asking git", () => {
  /** What `git rev-parse` says of `dir`, asked afresh. */
  async function asked(dir: string) {
    forgetRepoFacts(dir);
    return repoFacts(dir);
  }

  it("are what git says, from the top level or a sub-folder, through a symlinked path too", async () => {
    const { w, repo, parent } = await repoAndFolder("sssf-added-");
    const main = await repoFacts(w.dir);
    if (main === null) throw new Error("no facts");
    const worktree = path.join(parent, "wt");
    await addWorktree(repo, worktree, "sssf/prompt/added1", w.base);
    expect(addedWorktreeFacts(worktree, "", main)).toEqual(await asked(worktree));
    expect(addedWorktreeFacts(worktree, "src/", main)).toEqual(await asked(path.join(worktree, "src")));
    symlinkSync(parent, path.join(parent, "..", `${path.basename(parent)}-link`));
    scratch.push(`${parent}-link`);
    const linked = path.join(`${parent}-link`, "wt");
    expect(addedWorktreeFacts(linked, "", main)).toEqual(await asked(linked));
  });

  it("are left to git when core.hooksPath moves the hooks, or the .git file is not git's", async () => {
    const { w, repo, parent } = await repoAndFolder("sssf-added-");
    const worktree = path.join(parent, "wt");
    await addWorktree(repo, worktree, "sssf/prompt/added2", w.base);
    const main = await asked(w.dir);
    if (main === null) throw new Error("no facts");
    git(w.dir, ["config", "core.hooksPath", "githooks"]);
    const moved = await asked(w.dir);
    if (moved === null) throw new Error("no facts");
    expect(addedWorktreeFacts(worktree, "", moved)).toBeNull();
    // Relative to each work tree: the worktree's hooks are its own folder's.
    expect((await asked(worktree))?.hooksDir).toBe(path.join(worktree, "githooks"));
    writeFileSync(path.join(worktree, ".git"), "gitdir: /elsewhere/.git/worktrees/wt\n");
    expect(addedWorktreeFacts(worktree, "", main)).toBeNull();
    writeFileSync(path.join(worktree, ".git"), "not a pointer\n");
    expect(addedWorktreeFacts(worktree, "", main)).toBeNull();
    rmSync(path.join(worktree, ".git"));
    expect(addedWorktreeFacts(worktree, "", main)).toBeNull();
  });
});
