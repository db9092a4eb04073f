import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptedAgent } from "../../src/testing/index.js";
import { adwIdFrom, type CliResult, repoRoot } from "../helpers/sandbox.js";
import { buildTurn, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

/** Runs started at once in each round: more than git's worktree bookkeeping survives unserialized. */
const AT_ONCE = 16;

/**
 * A repository whose builder answers every send (so any number of runs can share it) with the compiled
 * scripted agent, which starts faster than the TypeScript one: 48 runs on 2 cores stay affordable.
 */
function concurrentWorld(): WorktreeWorld {
  const w = new WorktreeWorld([], { git: false });
  const builder = createScriptedAgent({
    dir: w.sb.agentsDir,
    name: "builder",
    turns: [{ ...buildTurn(), repeat: true }],
  });
  const program = path.join(repoRoot, "dist/testing/scripted-agent.js");
  w.sb.writeConfig({
    agents: [
      {
        name: "builder",
        coding_agent: "exec",
        command: [process.execPath, program, builder.scriptPath],
        sandbox: { allow_write: [w.sb.agentsDir] },
      },
    ],
  });
  git(w.dir, ["init", "-q", "-b", "main"]);
  git(w.dir, ["add", "-A"]);
  git(w.dir, ["commit", "-q", "-m", "initial"]);
  w.base = git(w.dir, ["rev-parse", "HEAD"]).trim();
  return w;
}

function expectExit0(results: CliResult[]): string[] {
  for (const result of results) expect(result.code, result.stdout + result.stderr).toBe(0);
  return results.map((result) => adwIdFrom(result.stdout));
}

/** `git worktree list --porcelain` as path → branch, every entry checked for leftovers. */
function worktreeList(dir: string): Map<string, string | null> {
  const listed = new Map<string, string | null>();
  for (const block of git(dir, ["worktree", "list", "--porcelain"]).trim().split("\n\n")) {
    const lines = block.split("\n");
    const worktree = lines.find((line) => line.startsWith("worktree "))?.slice("worktree ".length) ?? "";
    const branch = lines.find((line) => line.startsWith("branch refs/heads/"))?.slice(18) ?? null;
    // No half-made or stale record: git would mark it locked (add in progress) or prunable.
    expect(
      lines.filter((line) => /^(locked|prunable)\b/.test(line)),
      block,
    ).toEqual([]);
    listed.set(worktree, branch);
  }
  return listed;
}

describe("runs started at once on one repository", () => {
  it(`never collide: ${AT_ONCE} at a time, three rounds, with sssf clean and --merge among them`, {
    timeout: 300_000,
  }, async () => {
    world = concurrentWorld();
    const w = world;
    const build = (...flags: string[]) => w.run(["run", "build", "add the feature", ...flags]);

    // Round 1: only runs.
    const first = expectExit0(await Promise.all(Array.from({ length: AT_ONCE }, () => build())));

    // Round 2: runs, while sssf clean removes the first round's worktrees.
    const [cleaned, ...second] = await Promise.all([
      w.run(["clean"]),
      ...Array.from({ length: AT_ONCE }, () => build()),
    ]);
    const secondIds = expectExit0(second);
    expect(cleaned?.code, `${cleaned?.stdout}${cleaned?.stderr}`).toBe(0);
    const cleanLines = (cleaned?.stdout ?? "").split("\n").filter((line) => line.includes(".worktrees/"));
    for (const id of first)
      expect(cleanLines).toContain(`removed adws/adw_data/.worktrees/${id} (branch sssf/build/${id} kept)`);
    // A second-round worktree is removed when its run had finished, else skipped as running; git never failed.
    for (const line of cleanLines)
      expect(line).toMatch(
        /^(removed .*\(branch sssf\/build\/\w+ kept\)|skipped .*(running \(pid|added while clean ran))/,
      );
    const removed = new Set(
      cleanLines
        .filter((line) => line.startsWith("removed"))
        .map((line) => path.basename(line.split(" ")[1] ?? "")),
    );

    // Round 3: every run fast-forwards a branch when accepted: one the checked-out main (git merge in
    // the checkout), the others a lane each (update-ref), all reading the worktree list meanwhile.
    const lanes = Array.from({ length: AT_ONCE - 1 }, (_, index) => `lane-${index}`);
    for (const lane of lanes) git(w.dir, ["branch", lane, w.base]);
    const thirdResults = await Promise.all([
      build("--merge"),
      ...lanes.map((lane) => build("--merge", "--base", lane)),
    ]);
    const third = expectExit0(thirdResults);
    const [intoMain, ...intoLanes] = third;
    expect(git(w.dir, ["rev-parse", "main"]).trim()).toBe(
      git(w.dir, ["rev-parse", `sssf/build/${intoMain}`]).trim(),
    );
    intoLanes.forEach((id, index) => {
      expect(git(w.dir, ["rev-parse", `lane-${index}`]).trim()).toBe(
        git(w.dir, ["rev-parse", `sssf/build/${id}`]).trim(),
      );
    });
    for (const id of third)
      expect(w.phases(id)).toEqual(["request:success", "build:success", "commit:success", "merge:success"]);

    // Every run had an id, a worktree and a branch of its own, with exactly its own commit.
    const all = [...first, ...secondIds, ...third];
    expect(new Set(all).size).toBe(3 * AT_ONCE);
    for (const id of all) {
      expect(w.session(id)).toMatchObject({
        status: "success",
        worktree: w.worktree(id),
        branch: `sssf/build/${id}`,
      });
      expect(git(w.dir, ["log", "--format=%s", `${w.base}..sssf/build/${id}`]).trim()).toBe(
        "Add the feature",
      );
    }

    // Git's view agrees: the worktrees still there are exactly the runs' whose clean did not remove them.
    const listed = worktreeList(w.dir);
    const kept = all.filter((id) => !removed.has(id));
    expect(listed.get(w.dir)).toBe("main");
    expect(new Map([...listed].filter(([worktree]) => worktree !== w.dir))).toEqual(
      new Map(kept.map((id) => [w.worktree(id), `sssf/build/${id}`])),
    );
    for (const id of kept)
      expect(git(w.worktree(id), ["symbolic-ref", "HEAD"]).trim()).toBe(`refs/heads/sssf/build/${id}`);
    for (const id of removed) expect(existsSync(w.worktree(id))).toBe(false);
    const records = path.join(w.dir, ".git/worktrees");
    expect(readdirSync(records).sort()).toEqual([...kept].sort());
    for (const record of readdirSync(records))
      expect(readFileSync(path.join(records, record, "commondir"), "utf8").trim()).not.toBe("");
    expect(git(w.dir, ["worktree", "prune", "--dry-run", "--verbose"]).trim()).toBe("");
    // Nothing left locked.
    expect(
      readdirSync(path.join(w.dir, ".git")).filter((name) => name.startsWith("sssf-worktree.lock")),
    ).toEqual([]);
  });
});
