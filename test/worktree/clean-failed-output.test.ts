import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom } from "../helpers/sandbox.js";
import { checkoutFingerprint, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

/** An agent that rewrites src/app.js, adds src/half.js, then declares failure: output nobody committed. */
const failingWork = {
  tool_calls: [
    { tool: "write", write_file: { path: "src/app.js", content: 'export const app = "half done";\n' } },
    { tool: "write", write_file: { path: "src/half.js", content: "export const half = 1;\n" } },
  ],
  reply: JSON.stringify({ status: "fail", summary: "ran out of ideas" }),
};

/** The checkout as the operator has it, sssf's refs aside. */
function operatorView(dir: string) {
  const { files, status, head, index } = checkoutFingerprint(dir);
  return { files, status, head, index };
}

describe("sssf clean and a failed run's uncommitted output", () => {
  it("keeps it as refs/sssf/wip/<adw_id> and a patch in the session, then removes the worktree", async () => {
    world = new WorktreeWorld([failingWork]);
    const { dir } = world;
    const failed = await world.run(["run", "prompt", "half a change"]);
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    const adwId = adwIdFrom(failed.stdout);
    const worktree = world.worktree(adwId);
    const branch = `sssf/prompt/${adwId}`;
    expect(git(worktree, ["status", "--porcelain"]).split("\n").filter(Boolean).sort()).toEqual(
      [" M src/app.js", "?? src/half.js", "?? node_modules"].sort(),
    );
    // The operator's own uncommitted work in the checkout: never touched by clean.
    writeFileSync(path.join(dir, "notes.txt"), "mine\n");
    writeFileSync(path.join(dir, "src/util.js"), "export const util = 42;\n");
    const before = operatorView(dir);

    const what = "2 uncommitted changes (src/app.js, src/half.js) of the failed run";
    const dry = await world.run(["clean", "--dry-run"]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `would remove adws/adw_data/.worktrees/${adwId} (branch ${branch} has no commits: would delete it; ${what} would be kept as refs/sssf/wip/${adwId})`,
    );
    expect(existsSync(worktree)).toBe(true);

    const clean = await world.run(["clean"]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    const patchPath = `adws/adw_data/sessions/${adwId}/uncommitted.patch`;
    expect(clean.stdout).toContain(
      `removed adws/adw_data/.worktrees/${adwId} (branch ${branch} had no commits: deleted; ${what} kept as refs/sssf/wip/${adwId} and ${patchPath})`,
    );
    expect(existsSync(worktree)).toBe(false);
    expect(git(dir, ["branch", "--list", "sssf/*"]).trim()).toBe("");
    expect(operatorView(dir)).toEqual(before);

    // The output is all there: in the ref (on the run's base) and in the patch.
    const wip = `refs/sssf/wip/${adwId}`;
    expect(git(dir, ["rev-parse", `${wip}^1`]).trim()).toBe(world.base);
    expect(git(dir, ["show", `${wip}:src/half.js`])).toBe("export const half = 1;\n");
    expect(git(dir, ["show", `${wip}:src/app.js`])).toBe('export const app = "half done";\n');
    expect(git(dir, ["diff", "--name-only", world.base, wip]).trim().split("\n")).toEqual([
      "src/app.js",
      "src/half.js",
    ]);
    const patch = readFileSync(path.join(dir, patchPath), "utf8");
    expect(patch).toContain("+export const half = 1;");
    expect(patch).not.toContain("node_modules");
    git(dir, ["apply", "--check", patchPath]);
  });
});
