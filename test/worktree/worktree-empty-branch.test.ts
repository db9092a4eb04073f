import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workflowRefName } from "../../src/workspace/run-branch.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { adwIdFrom, envelopeJson } from "../helpers/sandbox.js";
import { buildTurn, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const lookTurn = { reply: envelopeJson({ summary: "looked around" }) };
const failTurn = { reply: JSON.stringify({ status: "fail", summary: "could not" }) };

function branches(w: WorktreeWorld): string[] {
  return git(w.dir, ["branch", "--list", "sssf/*", "--format=%(refname:short)"])
    .split("\n")
    .filter(Boolean)
    .sort();
}

async function runOnce(
  w: WorktreeWorld,
  args: string[],
  code: number,
): Promise<{ adwId: string; stdout: string }> {
  const result = await w.run(args);
  expect(result.code, result.stdout + result.stderr).toBe(code);
  return { adwId: adwIdFrom(result.stdout), stdout: result.stdout };
}

describe("a run that commits nothing", () => {
  it("accepted: leaves no branch and no worktree, says so instead of an empty review range, and can be rejoined", async () => {
    world = new WorktreeWorld([lookTurn]);
    const { adwId, stdout } = await runOnce(world, ["run", "prompt", "look around"], 0);
    const branch = `sssf/prompt/${adwId}`;
    expect(stdout).toContain(`branch ${branch}`);
    expect(stdout).toContain(`no commits; branch ${branch} removed, with its worktree`);
    expect(stdout).not.toContain("review: git log");
    expect(branches(world)).toEqual([]);
    expect(existsSync(world.worktree(adwId))).toBe(false);
    expect(git(world.dir, ["worktree", "list", "--porcelain"])).not.toContain(".worktrees/");
    // The session keeps its record: where it worked, on which branch, from which base.
    expect(world.session(adwId)).toMatchObject({ status: "success", branch, base_ref: world.base });
    const removed = world.sb.query<{ name: string }>(
      "SELECT name FROM events WHERE adw_id = ? AND name LIKE 'no commits:%'",
      adwId,
    );
    expect(removed.map((e) => e.name)).toEqual([`no commits: branch ${branch} and its worktree removed`]);

    // A rejoin starts the recorded branch again at the recorded base, and commits there.
    world.script([buildTurn("later", "Add it later")]);
    // Another workflow joins the session: the recorded branch stays.
    const again = await runOnce(world, ["run", "build", "now build it", "--adw-id", adwId], 0);
    expect(again.stdout).toContain(`starting ${branch} again at its base ${world.base.slice(0, 12)}`);
    expect(again.stdout).toContain(`git log --oneline ${world.base.slice(0, 12)}..${branch}`);
    expect(git(world.dir, ["log", "--format=%s", `${world.base}..${branch}`]).trim()).toBe("Add it later");
  });

  it("failed: keeps its branch and worktree for a resume, without an empty review range", async () => {
    world = new WorktreeWorld([failTurn]);
    const { adwId, stdout } = await runOnce(world, ["run", "prompt", "look around"], 1);
    const branch = `sssf/prompt/${adwId}`;
    expect(branches(world)).toEqual([branch]);
    expect(existsSync(world.worktree(adwId))).toBe(true);
    expect(stdout).toContain(`no commits on branch ${branch}: nothing to review`);
    expect(stdout).toContain(`kept to rejoin (sssf resume ${adwId})`);
    expect(stdout).not.toContain("review: git log");
  });

  it("accepted with uncommitted files left in its worktree: keeps both and says why", async () => {
    world = new WorktreeWorld([
      {
        tool_calls: [{ tool: "write", write_file: { path: "scratch.md", content: "notes\n" } }],
        reply: envelopeJson({ summary: "took notes", artifacts: ["scratch.md"] }),
      },
    ]);
    const { adwId, stdout } = await runOnce(world, ["run", "prompt", "take notes"], 0);
    expect(stdout).toContain(
      `no commits, but 1 uncommitted change in the worktree (scratch.md): branch sssf/prompt/${adwId} and its worktree kept`,
    );
    expect(branches(world)).toEqual([`sssf/prompt/${adwId}`]);
    expect(existsSync(path.join(world.worktree(adwId), "scratch.md"))).toBe(true);
  });
});

describe("sssf clean and branches without commits", () => {
  it("deletes finished runs' empty branches, with or without their worktrees, never one with a commit", async () => {
    world = new WorktreeWorld([failTurn]);
    const failed = (await runOnce(world, ["run", "prompt", "fail"], 1)).adwId;
    world.script([failTurn]);
    const orphan = (await runOnce(world, ["run", "prompt", "fail again"], 1)).adwId;
    // Its worktree removed by hand (or by an older sssf clean, which kept every branch).
    git(world.dir, ["worktree", "remove", "--force", world.worktree(orphan)]);
    world.script([buildTurn("kept", "Add kept")]);
    const built = (await runOnce(world, ["run", "build", "add it"], 0)).adwId;
    world.dirtyTheCheckout();
    world.script([failTurn]);
    const carried = (await runOnce(world, ["run", "prompt", "fail carrying", "--carry-dirty"], 1)).adwId;
    // A branch of a run nobody recorded is not sssf clean's to judge.
    git(world.dir, ["branch", "sssf/prompt/unknown1"]);
    expect(branches(world)).toEqual(
      [failed, orphan, carried, "unknown1"]
        .map((id) => `sssf/prompt/${id}`)
        .concat(`sssf/build/${built}`)
        .sort(),
    );

    const dry = await world.run(["clean", "--dry-run"]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `would remove adws/adw_data/.worktrees/${failed} (branch sssf/prompt/${failed} has no commits: would delete it)`,
    );
    expect(dry.stdout).toContain(`would delete branch sssf/prompt/${orphan} (no commits beyond its base`);
    expect(branches(world)).toHaveLength(5);

    const clean = await world.run(["clean"]);
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    const lines = clean.stdout.trim().split("\n");
    expect(lines).toContain(
      `removed adws/adw_data/.worktrees/${failed} (branch sssf/prompt/${failed} had no commits: deleted)`,
    );
    expect(lines).toContain(
      `deleted branch sssf/prompt/${orphan} (no commits beyond its base; its worktree was removed already)`,
    );
    expect(lines).toContain(`removed adws/adw_data/.worktrees/${built} (branch sssf/build/${built} kept)`);
    // The carry commit is a commit: its branch is kept like any other.
    expect(lines).toContain(
      `removed adws/adw_data/.worktrees/${carried} (branch sssf/prompt/${carried} kept)`,
    );
    expect(lines).toContain(
      "branches with commits are kept: review or delete them with git branch --list 'sssf/*' and git branch -D <branch>",
    );
    expect(branches(world)).toEqual(
      [`sssf/build/${built}`, `sssf/prompt/${carried}`, "sssf/prompt/unknown1"].sort(),
    );

    // Nothing left to delete: a second clean keeps every branch with a commit.
    const again = await world.run(["clean"]);
    expect(again.stdout.trim()).toBe("no run worktrees or branches without commits to clean");
    expect(branches(world)).toHaveLength(3);

    // A failed run whose empty branch clean deleted is resumed on a new branch of that name at its base.
    world.script([lookTurn]);
    const resumed = await world.run(["resume", failed]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`starting sssf/prompt/${failed} again at its base`);
  });
});

describe("branch names", () => {
  it("name the workflow; a session on record keeps the branch it recorded", async () => {
    world = new WorktreeWorld([buildTurn()]);
    const { adwId } = await runOnce(world, ["run", "build", "add it"], 0);
    const legacy = `sssf/${adwId}`;
    // A session from before branches named their workflow: its row and its branch say sssf/<adw_id>.
    git(world.dir, ["branch", "-m", `sssf/build/${adwId}`, legacy]);
    const db = openRawSqlite(path.join(world.dir, "adws/adw_data/sssf.db"));
    db.prepare("UPDATE sessions SET branch = ? WHERE adw_id = ?").run(legacy, adwId);
    db.close();
    world.script([
      {
        tool_calls: [{ tool: "write", write_file: { path: "src/second.js", content: "second\n" } }],
        reply: envelopeJson({
          summary: "second",
          changed_files: ["src/second.js"],
          commit_message: "Add second",
        }),
      },
    ]);
    const rejoin = await runOnce(world, ["run", "build", "more", "--adw-id", adwId], 0);
    expect(rejoin.stdout).toContain(`branch ${legacy}`);
    expect(git(world.dir, ["log", "-1", "--format=%s", legacy]).trim()).toBe("Add second");
    expect(branches(world)).toEqual([legacy]);
  });

  it("are git ref-safe whatever the workflow is called", () => {
    const hostile = [
      "build",
      "build_docs",
      "My Flow",
      "a/b\\c",
      "..hidden..",
      "x.lock",
      "-dash-",
      "ünïcødé",
      "new\nline",
      "@{upstream}",
      "~^:?*[",
      "",
      "a".repeat(300),
      "trailing.",
      "sssf/../../HEAD",
    ];
    const names = hostile.map(workflowRefName);
    expect(names.slice(0, 4)).toEqual(["build", "build_docs", "My-Flow", "a-b-c"]);
    for (const name of names) {
      expect(name.length).toBeGreaterThan(0);
      expect(name.length).toBeLessThanOrEqual(40);
      expect(name).toMatch(/^[A-Za-z0-9._-]+$/);
      const checked = execFileSync("git", ["check-ref-format", "--branch", `sssf/${name}/abc12345`], {
        encoding: "utf8",
      }).trim();
      expect(checked).toBe(`sssf/${name}/abc12345`);
    }
  });
});
