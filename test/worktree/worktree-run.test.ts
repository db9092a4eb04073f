import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptedAgent } from "../../src/testing/index.js";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { adwIdFrom, envelopeJson } from "../helpers/sandbox.js";
import { buildTurn, checkoutFingerprint, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

describe("a run works in its own worktree", () => {
  it("commits on sssf/<workflow>/<adw_id> and leaves the operator's checkout byte-identical", async () => {
    world = new WorktreeWorld([buildTurn()]);
    world.dirtyTheCheckout();
    const before = checkoutFingerprint(world.dir);

    const result = await world.run(["run", "build-test", "add the feature"]);
    expect(result.stderr).toBe("");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const worktree = world.worktree(adwId);
    expect(checkoutFingerprint(world.dir)).toEqual(before);

    expect(world.phases(adwId)).toEqual([
      "request:success",
      "build:success",
      "test:success",
      "commit:success",
    ]);
    expect(world.session(adwId)).toMatchObject({
      status: "success",
      cwd: worktree,
      worktree,
      branch: `sssf/build-test/${adwId}`,
      base_ref: world.base,
      checkout: world.dir,
    });
    // The branch holds exactly the builder's commit, on top of the base.
    const branch = `sssf/build-test/${adwId}`;
    expect(git(world.dir, ["log", "--format=%s", `${world.base}..${branch}`]).trim()).toBe("Add the feature");
    expect(git(world.dir, ["show", "--name-only", "--format=", branch]).trim().split("\n")).toEqual([
      "src/app.js",
      "src/feature.js",
    ]);
    expect(git(world.dir, ["show", `${branch}:src/app.js`])).toBe('export const app = "feature";\n');
    // The worktree is clean after the commit, the dependency link never counted as a change.
    expect(lstatSync(path.join(worktree, "node_modules")).isSymbolicLink()).toBe(true);
    expect(git(worktree, ["status", "--porcelain"]).trim()).toBe("?? node_modules");
    // The agent ran in the worktree.
    const cwds = world.sb.query<{ cwd: string }>("SELECT cwd FROM processes WHERE adw_id = ?", adwId);
    expect(cwds.length).toBeGreaterThan(0);
    expect(new Set(cwds.map((row) => row.cwd))).toEqual(new Set([worktree]));

    expect(result.stdout).toContain(
      `worktree adws/adw_data/.worktrees/${adwId} · branch sssf/build-test/${adwId}`,
    );
    expect(result.stdout).toContain(`git log --oneline ${world.base.slice(0, 12)}..sssf/build-test/${adwId}`);
    const created = world.sb.query<{ payload: string }>(
      "SELECT payload FROM events WHERE adw_id = ? AND name LIKE 'worktree created:%'",
      adwId,
    );
    expect(JSON.parse(created[0]?.payload ?? "{}")).toMatchObject({
      linked: [path.join(worktree, "node_modules")],
      // The branch the run started from: where `sssf merge` lands it.
      base_branch: "main",
    });

    // The columns travel in events.jsonl: a rebuilt database has them too.
    const row = world.session(adwId);
    const rebuilt = await world.run(["db", "rebuild"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(world.session(adwId)).toEqual(row);
  });

  it("--in-place writes into the checkout and records no worktree", async () => {
    world = new WorktreeWorld([buildTurn("in place", "Add in place")]);
    const result = await world.run(["run", "build", "add it here", "--in-place"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(readFileSync(path.join(world.dir, "src/feature.js"), "utf8")).toContain("in place");
    expect(git(world.dir, ["log", "-1", "--format=%s"]).trim()).toBe("Add in place");
    expect(world.session(adwId)).toMatchObject({
      cwd: world.dir,
      worktree: null,
      branch: null,
      base_ref: null,
      checkout: world.dir,
    });
    expect(existsSync(world.worktree(adwId))).toBe(false);
    expect(git(world.dir, ["branch", "--list", "sssf/*"]).trim()).toBe("");
  });

  it("--base starts the branch at another commit; an unknown one is a usage error", async () => {
    world = new WorktreeWorld([buildTurn()]);
    const first = world.base;
    git(world.dir, ["commit", "-q", "--allow-empty", "-m", "second"]);
    const bad = await world.run(["run", "build", "x", "--base", "no-such-ref"]);
    expect(bad.code, bad.stdout + bad.stderr).toBe(2);
    expect(bad.stderr).toContain('--base: "no-such-ref" does not name a commit');
    expect(existsSync(path.join(world.dir, "adws/adw_data/.worktrees"))).toBe(false);

    const result = await world.run(["run", "build", "add the feature", "--base", "HEAD~1"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(world.session(adwId)).toMatchObject({ base_ref: first });
    expect(git(world.dir, ["rev-parse", `sssf/build/${adwId}~1`]).trim()).toBe(first);
  });
});

describe("a run started from a sub-folder", () => {
  it("works in the same sub-folder of the worktree and commits there", async () => {
    world = new WorktreeWorld([], { git: false });
    const sub = path.join(world.dir, "pkg");
    const builder = createScriptedAgent({
      dir: world.sb.agentsDir,
      name: "pkg-builder",
      turns: [
        {
          tool_calls: [{ tool: "write", write_file: { path: "x.txt", content: "x\n" } }],
          reply: envelopeJson({ summary: "wrote x", changed_files: ["x.txt"], commit_message: "Add x" }),
        },
      ],
    });
    const prompts = path.join(sub, "adws/adw_data/prompt_engineering/builder");
    mkdirSync(prompts, { recursive: true });
    writeFileSync(path.join(prompts, "system.md"), "# builder\n");
    writeFileSync(path.join(prompts, "user.md"), "{{prompt}}\n");
    world.sb.writeConfig(
      { agents: [{ name: "builder", ...builder.rosterEntry }] },
      "pkg/adws/adw_sssf_config/sssf.config.yaml",
    );
    git(world.dir, ["init", "-q", "-b", "main"]);
    git(world.dir, ["add", "-A"]);
    git(world.dir, ["commit", "-q", "-m", "initial"]);

    const result = await world.run(["run", "build", "write x", "--cwd", sub]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    const worktree = path.join(sub, "adws/adw_data/.worktrees", adwId);
    expect(git(world.dir, ["show", "--name-only", "--format=", `sssf/build/${adwId}`]).trim()).toBe(
      "pkg/x.txt",
    );
    expect(existsSync(path.join(sub, "x.txt"))).toBe(false);
    const db = openRawSqlite(path.join(sub, "adws/adw_data/sssf.db"), { readonly: true });
    const row = db.prepare("SELECT cwd, worktree, checkout FROM sessions WHERE adw_id = ?").get(adwId);
    db.close();
    expect(row).toEqual({ cwd: path.join(worktree, "pkg"), worktree, checkout: sub });
  });
});

describe("where a run cannot have a worktree", () => {
  it("runs in place outside git and says so on screen and in the trace", async () => {
    world = new WorktreeWorld([buildTurn()], { git: false });
    const result = await world.run(["run", "prompt", "say hi"]);
    const adwId = adwIdFrom(result.stdout);
    expect(result.stdout).toContain("is not a git work tree: running in place");
    const notes = world.sb.query<{ name: string }>(
      "SELECT name FROM events WHERE adw_id = ? AND type = 'log' AND name LIKE '%not a git work tree%'",
      adwId,
    );
    expect(notes).toHaveLength(1);
    expect(world.session(adwId)).toMatchObject({ worktree: null, branch: null, cwd: world.dir });
  });

  it("refuses a repository without commits before creating anything", async () => {
    world = new WorktreeWorld([buildTurn()], { git: false });
    git(world.dir, ["init", "-q", "-b", "main"]);
    const result = await world.run(["run", "build", "x"]);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toContain("has no commits: commit once, or pass --in-place");
    expect(existsSync(path.join(world.dir, "adws/adw_data/sessions"))).toBe(false);
    expect(existsSync(path.join(world.dir, "adws/adw_data/sssf.db"))).toBe(false);
    expect(git(world.dir, ["branch", "--list"]).trim()).toBe("");
  });
});
