import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git } from "../worktree/worktree-world.js";
import { ok, outcomes, ReplayWorld } from "./replay-world.js";

/** `--rerun-code` runs the suites again; without it they are answered from the record. */
describe("sssf replay --rerun-code", () => {
  let world: ReplayWorld | undefined;
  afterEach(() => world?.cleanup());

  it("runs the suite again in a scratch worktree of the run's commit, and leaves no worktree behind", async () => {
    world = new ReplayWorld({ first: [ok("planned")], second: [ok("built")] });
    const w = world;
    // The suite fails once a flag file outside the repository exists: same commit, another outcome.
    const flag = path.join(w.sb.agentsDir, "suite-breaks");
    writeFileSync(
      path.join(w.dir, "check.mjs"),
      `import { existsSync } from "node:fs";\nif (existsSync(${JSON.stringify(flag)})) { console.log("not ok 1 - broken now"); process.exit(1); }\nconsole.log("ok 1");\n`,
    );
    git(w.dir, ["commit", "-q", "-am", "a suite that can break"]);
    const { adwId, result } = await w.record();
    expect(result.code, result.stderr).toBe(0);
    const worktrees = git(w.dir, ["worktree", "list", "--porcelain"]);

    const rerunSame = await w.replayJson([adwId, "--rerun-code"]);
    expect(rerunSame.code, rerunSame.stderr).toBe(0);
    expect(outcomes(rerunSame.report.replays[0])).toEqual(["1 one same", "2 test same", "3 two same"]);

    mkdirSync(path.dirname(flag), { recursive: true });
    writeFileSync(flag, "");
    const answered = await w.replayJson([adwId]);
    expect(answered.code).toBe(0);
    expect(outcomes(answered.report.replays[0])).toEqual(["1 one same", "2 test same", "3 two same"]);

    const rerun = await w.replayJson([adwId, "--rerun-code"]);
    expect(rerun.code).toBe(1);
    const test = rerun.report.replays[0]?.phases.find((p) => p.phase === "test");
    expect(test?.outcome).toBe("now rejected");
    expect(test?.detail).toMatch(/^suite#1 was success, now fail/);
    expect(git(w.dir, ["worktree", "list", "--porcelain"])).toBe(worktrees);
    expect(existsSync(path.join(w.dir, "adws/adw_data/replays/sessions"))).toBe(true);
    expect(readdirSync(path.join(w.dir, "adws/adw_data/replays/sessions"))).toHaveLength(3);
  });
});
