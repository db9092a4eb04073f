import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/library.js";
import { BUILTIN_RUNTIME_IDS } from "../../src/runtimes/builtins.js";
import { planWorkspace } from "../../src/workspace/run-workspace.js";
import { WorkspaceOpening } from "../../src/workspace/workspace-opening.js";
import { git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

async function plans(adwId: string) {
  world = new WorktreeWorld([]);
  const config = loadConfig({ cwd: world.dir, knownRuntimes: BUILTIN_RUNTIME_IDS });
  const request = { config, adwId, base: undefined, merge: false, carryDirty: false, workflow: "prompt" };
  const create = await planWorkspace({ ...request, inPlace: false, existing: undefined });
  const inPlace = await planWorkspace({ ...request, inPlace: true, existing: undefined });
  return { create, inPlace, dir: world.dir };
}

const runBranches = (dir: string) =>
  git(dir, ["for-each-ref", "--format=%(refname:short)", "refs/heads/sssf/"]).trim();

describe("a workspace opened ahead", () => {
  it("is the run's workspace when its plan stands", async () => {
    const { create, dir } = await plans("0a0a0a01");
    const opening = new WorkspaceOpening(create, true);
    const workspace = await opening.open(create);
    expect(workspace.action).toBe("created");
    expect(existsSync(workspace.root)).toBe(true);
    await opening.abandon(); // settled by open: nothing is removed
    expect(existsSync(workspace.root)).toBe(true);
    expect(runBranches(dir)).toBe("sssf/prompt/0a0a0a01");
  });

  it("goes, worktree and branch, when the plan changed before the run took it", async () => {
    const { create, inPlace, dir } = await plans("0a0a0a02");
    const opening = new WorkspaceOpening(create, true);
    const workspace = await opening.open(inPlace);
    expect(workspace.mode).toBe("in-place");
    expect(existsSync(create.worktree ?? "")).toBe(false);
    expect(runBranches(dir)).toBe("");
  });

  it("goes when the run ends before it is taken", async () => {
    const { create, dir } = await plans("0a0a0a03");
    const opening = new WorkspaceOpening(create, true);
    await opening.abandon();
    expect(existsSync(create.worktree ?? "")).toBe(false);
    expect(runBranches(dir)).toBe("");
    expect(git(dir, ["worktree", "list", "--porcelain"]).match(/^worktree /gm)).toHaveLength(1);
  });

  it("is not opened ahead unless asked, nor for a plan that creates nothing", async () => {
    const { create, inPlace, dir } = await plans("0a0a0a04");
    new WorkspaceOpening(create, false);
    new WorkspaceOpening(inPlace, true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(runBranches(dir)).toBe("");
  });
});
