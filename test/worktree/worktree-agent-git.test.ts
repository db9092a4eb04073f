import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { adwIdFrom, envelopeJson } from "../helpers/sandbox.js";
import { git, WorktreeWorld } from "./worktree-world.js";

// Unboxed (SSSF_SANDBOX=off): these agents run git in their worktree (commits, branches), which the box's read-only git dir forbids: this is the write boundary's case; test/sandbox covers the box.
process.env.SSSF_SANDBOX = "off";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

/** The agent's own identity for the commits it makes in a shell. */
const AGENT_GIT = "git -c user.name=Agent -c user.email=agent@example.test";

/** A turn running `bash` in the run's root, then answering success. */
function shellTurn(bash: string, reply: Record<string, unknown> = { summary: "used git" }) {
  return { tool_calls: [{ tool: "bash", bash }], reply: envelopeJson(reply) };
}

function sssfBranches(w: WorktreeWorld): string[] {
  return git(w.dir, ["branch", "--list", "sssf/*", "--format=%(refname:short)"]).split("\n").filter(Boolean);
}

function subjects(w: WorktreeWorld, range: string): string[] {
  return git(w.dir, ["log", "--format=%s", range]).split("\n").filter(Boolean);
}

/**
 * The agent runs git in its worktree during the send (commits, switches branches): everything sssf
 * knows of refs and HEAD from before the send is stale then, and the end of the run must see the truth.
 */
describe("git commands of the agent inside its worktree", () => {
  it("a commit on the run's branch: the branch is kept for review, not removed as empty", async () => {
    world = new WorktreeWorld([
      shellTurn(`echo agent > agent.txt && git add agent.txt && ${AGENT_GIT} commit -q -m "agent commit"`),
    ]);
    const result = await world.run(["run", "prompt", "commit something yourself"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const branch = `sssf/prompt/${adwId}`;
    expect(result.stdout).toContain(`branch ${branch} left for review`);
    expect(subjects(world, `${world.base}..${branch}`)).toEqual(["agent commit"]);
    expect(existsSync(path.join(world.worktree(adwId), "agent.txt"))).toBe(true);
  });

  it("a branch of its own, committed on: refused, the branch deleted and the worktree's HEAD put back on the run's branch", async () => {
    world = new WorktreeWorld([
      shellTurn(
        `git checkout -q -b side && echo side > side.txt && git add side.txt && ${AGENT_GIT} commit -q -m "on side"`,
      ),
    ]);
    const result = await world.run(["run", "prompt", "work on a branch of your own"]);
    // A ref other than the run's own branch changed: the phase fails, naming it, and it is undone.
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toContain("refs/heads/side");
    const adwId = adwIdFrom(result.stdout);
    const branch = `sssf/prompt/${adwId}`;
    expect(git(world.dir, ["branch", "--list", "side"]).trim()).toBe("");
    expect(git(world.worktree(adwId), ["symbolic-ref", "HEAD"]).trim()).toBe(`refs/heads/${branch}`);
    // The failed run keeps its own branch for a resume; no other sssf branch appeared.
    expect(sssfBranches(world)).toEqual([branch]);
  });

  it("a commit made on a branch of its own and merged into the run's: the run's branch keeps it, the other branch goes", async () => {
    world = new WorktreeWorld([
      shellTurn(
        [
          "git checkout -q -b side",
          "echo side > side.txt",
          "git add side.txt",
          `${AGENT_GIT} commit -q -m "on side"`,
          "git checkout -q -",
          "git merge -q --ff-only side",
        ].join(" && "),
      ),
    ]);
    const result = await world.run(["run", "prompt", "merge your branch into the run's"]);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toContain("refs/heads/side");
    const adwId = adwIdFrom(result.stdout);
    const branch = `sssf/prompt/${adwId}`;
    expect(git(world.dir, ["branch", "--list", "side"]).trim()).toBe("");
    expect(subjects(world, `${world.base}..${branch}`)).toEqual(["on side"]);
  });

  it("build: the agent commits part of its work itself, and sssf's commit lands on top of it", async () => {
    world = new WorktreeWorld([
      {
        tool_calls: [
          { tool: "write", write_file: { path: "src/feature.js", content: 'export const feature = "x";\n' } },
          { tool: "write", write_file: { path: "src/app.js", content: 'export const app = "x";\n' } },
          { tool: "bash", bash: `git add src/app.js && ${AGENT_GIT} commit -q -m "agent: app"` },
        ],
        reply: envelopeJson({
          summary: "built it",
          changed_files: ["src/app.js", "src/feature.js"],
          commit_message: "Add the feature",
        }),
      },
    ]);
    const result = await world.run(["run", "build", "build it"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const branch = `sssf/build/${adwId}`;
    expect(world.phases(adwId)).toEqual(["request:success", "build:success", "commit:success"]);
    expect(subjects(world, `${world.base}..${branch}`)).toEqual(["Add the feature", "agent: app"]);
    expect(git(world.dir, ["show", "--name-only", "--format=", branch]).trim()).toBe("src/feature.js");
    expect(git(world.worktree(adwId), ["status", "--porcelain", "--untracked-files=no"])).toBe("");
  });
});
