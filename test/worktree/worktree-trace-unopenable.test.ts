import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildTurn, GIT_ENV, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

describe("a run whose trace cannot be opened", () => {
  it("stops naming the file, and leaves no worktree or branch of the one git added meanwhile", async () => {
    world = new WorktreeWorld([buildTurn()]);
    // A folder where the database file should be: SQLite cannot open it.
    const db = path.join(world.dir, "trace-folder");
    mkdirSync(db);
    const result = await world.sb.run(["run", "prompt", "go", "--agent", "builder"], {
      ...GIT_ENV,
      SSSF_DB: db,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot open the trace database ${db}`);
    expect(result.stderr).toContain("SSSF_DB");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(git(world.dir, ["worktree", "list", "--porcelain"]).match(/^worktree /gm)).toHaveLength(1);
    expect(git(world.dir, ["branch", "--list", "sssf/*"]).trim()).toBe("");
    expect(world.builder.sends()).toHaveLength(0);
  });
});
