import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelopeJson } from "../helpers/sandbox.js";
import { git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const lookTurn = { reply: envelopeJson({ summary: "looked around" }) };
const CONFIG = "adws/adw_sssf_config/sssf.config.yaml";

/** The run's "not in this run's worktree" line, or undefined when it printed none. */
const leftOutLine = (stdout: string) =>
  stdout.split("\n").find((l) => l.includes("not in this run's worktree"));

describe("sssf init's own files and the uncommitted-changes warning", () => {
  it("a fresh init is not warned about, its commit command is printed, and later edits to its files are", async () => {
    world = new WorktreeWorld([lookTurn, lookTurn]);
    const { dir } = world;
    // The checkout before init: no sssf config committed, a .gitignore of the project's own.
    writeFileSync(path.join(dir, ".gitignore"), "node_modules/\n*.log\n");
    git(dir, ["rm", "-q", "--cached", CONFIG]);
    git(dir, ["add", ".gitignore"]);
    git(dir, ["commit", "-q", "-m", "the project before sssf"]);

    const init = await world.run(["init"]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(
      "commit what init wrote (runs leave it out of their uncommitted-changes warning until then):\n" +
        '  git add adws/adw_sssf_config adws/adw_data/prompt_engineering .gitignore && git commit -m "Add sssf config and prompts"\n',
    );
    writeFileSync(path.join(dir, "notes.txt"), "the operator's own\n");
    // What the run sees as uncommitted: init's config, schema, .gitignore lines and prompts, and notes.txt.
    const status = git(dir, ["status", "--porcelain", "--untracked-files=all"]).split("\n").filter(Boolean);
    const prompts = status.filter((line) => line.startsWith("?? adws/adw_data/prompt_engineering/"));
    expect(prompts).toHaveLength(10); // five agents, two files each
    expect(status.filter((line) => !prompts.includes(line)).sort()).toEqual([
      " M .gitignore",
      "?? adws/adw_sssf_config/sssf.config.schema.json",
      `?? ${CONFIG}`,
      "?? notes.txt",
    ]);

    const fresh = await world.run(["run", "prompt", "look around"]);
    expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);
    expect(leftOutLine(fresh.stdout)).toBe(
      "   ! 1 uncommitted file is not in this run's worktree: notes.txt (--carry-dirty brings them in)",
    );

    // Committed, then edited by the operator: those are the operator's changes, and are named.
    git(dir, ["add", "adws/adw_sssf_config", "adws/adw_data/prompt_engineering", ".gitignore"]);
    git(dir, ["commit", "-q", "-m", "Add sssf config and prompts"]);
    appendFileSync(path.join(dir, CONFIG), "\n# tuned by the operator\n");
    appendFileSync(path.join(dir, ".gitignore"), "coverage/\n");
    const edited = await world.run(["run", "prompt", "look around"]);
    expect(edited.code, edited.stdout + edited.stderr).toBe(0);
    expect(leftOutLine(edited.stdout)).toBe(
      `   ! 3 uncommitted files are not in this run's worktree: .gitignore, ${CONFIG}, notes.txt (--carry-dirty brings them in)`,
    );
  });
});
