import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CARRY_SUBJECT } from "../../src/workspace/worktree-dirty.js";
import { adwIdFrom, envelopeJson } from "../helpers/sandbox.js";
import { checkoutFingerprint, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

const lookTurn = { reply: envelopeJson({ summary: "looked around" }) };

/** A builder turn adding `src/feature.js` and nothing else. */
const featureTurn = {
  tool_calls: [
    { tool: "write", write_file: { path: "src/feature.js", content: 'export const feature = "new";\n' } },
  ],
  reply: envelopeJson({
    summary: "built it",
    changed_files: ["src/feature.js"],
    commit_message: "Add the feature",
  }),
};

/** `log` events of the run whose name starts with `prefix`, payloads parsed. */
function logEvents(w: WorktreeWorld, adwId: string, prefix: string): Record<string, unknown>[] {
  return w.sb
    .query<{ name: string; payload: string }>(
      "SELECT name, payload FROM events WHERE adw_id = ? AND type = 'log' ORDER BY started_at",
      adwId,
    )
    .filter((event) => event.name.startsWith(prefix))
    .map((event) => ({ name: event.name, ...JSON.parse(event.payload) }));
}

/** NUL-separated git output as a list. */
function zList(dir: string, args: string[]): string[] {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8" }).split("\0").filter(Boolean).sort();
}

describe("uncommitted work in the checkout", () => {
  it("is named at the start (terminal and trace), capped on screen, and the checkout stays byte-identical", async () => {
    world = new WorktreeWorld([lookTurn]);
    world.dirtyTheCheckout(); // src/app.js modified, src/util.js staged, notes.txt untracked, debug.log ignored
    writeFileSync(path.join(world.dir, "with space.txt"), "spaces\n");
    writeFileSync(path.join(world.dir, "new\nline.txt"), "a newline in the name\n");
    writeFileSync(path.join(world.dir, "ünï\u202e.txt"), "unicode and a bidi control\n");
    mkdirSync(path.join(world.dir, "zz-many"));
    for (let i = 1; i <= 12; i++)
      writeFileSync(path.join(world.dir, `zz-many/f${String(i).padStart(2, "0")}.txt`), `${i}\n`);
    rmSync(path.join(world.dir, "check.mjs"));
    const before = checkoutFingerprint(world.dir);

    const result = await world.run(["run", "prompt", "look around"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(checkoutFingerprint(world.dir)).toEqual(before);

    const line = result.stdout.split("\n").find((l) => l.includes("uncommitted files are not in"));
    expect(line).toBe(
      '   ! 19 uncommitted files are not in this run\'s worktree: check.mjs, "new\\nline.txt", notes.txt, src/app.js, src/util.js, "with space.txt", zz-many/f01.txt, zz-many/f02.txt, zz-many/f03.txt, zz-many/f04.txt and 9 more (--carry-dirty brings them in)',
    );
    const [event] = logEvents(world, adwId, "! 19 uncommitted files");
    const many = Array.from({ length: 12 }, (_, i) => `zz-many/f${String(i + 1).padStart(2, "0")}.txt`);
    expect(event).toMatchObject({
      carried: false,
      count: 19,
      checkout: world.dir,
      files: [
        "check.mjs",
        "new\nline.txt",
        "notes.txt",
        "src/app.js",
        "src/util.js",
        "with space.txt",
        ...many,
        "ünï\u202e.txt",
      ],
      modified: ["src/app.js"],
      staged: ["src/util.js"],
      deleted: ["check.mjs"],
      untracked: ["new\nline.txt", "notes.txt", "with space.txt", ...many, "ünï\u202e.txt"],
    });
    // Ignored files are never the operator's uncommitted work.
    expect(JSON.stringify(event)).not.toContain("debug.log");
    // The worktree has none of it.
    expect(existsSync(path.join(world.worktree(adwId), "notes.txt"))).toBe(false);
  });

  it("says nothing when the checkout is clean", async () => {
    world = new WorktreeWorld([lookTurn]);
    writeFileSync(path.join(world.dir, "debug.log"), "ignored only\n");
    const result = await world.run(["run", "prompt", "look around"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).not.toContain("uncommitted");
    expect(logEvents(world, adwIdFrom(result.stdout), "!")).toEqual([]);
  });
});

describe("--carry-dirty", () => {
  it("carries modified, staged, deleted and untracked files in as sssf's own commit; the run's commit holds only its change", async () => {
    world = new WorktreeWorld([featureTurn]);
    const { dir } = world;
    writeFileSync(path.join(dir, "old.txt"), "to delete in the working tree\n");
    writeFileSync(path.join(dir, "gone.txt"), "to delete in the index\n");
    git(dir, ["add", "old.txt", "gone.txt"]);
    git(dir, ["commit", "-q", "-m", "two more files"]);
    const base = git(dir, ["rev-parse", "HEAD"]).trim();
    writeFileSync(path.join(dir, "src/app.js"), 'export const app = "operator edit";\n');
    writeFileSync(path.join(dir, "src/util.js"), "export const util = 2;\n");
    git(dir, ["add", "src/util.js"]);
    // Staged, then changed again: the run starts from what the operator sees, the working tree.
    writeFileSync(path.join(dir, "src/util.js"), "export const util = 3;\n");
    writeFileSync(path.join(dir, "staged new.txt"), "staged\n");
    git(dir, ["add", "staged new.txt"]);
    rmSync(path.join(dir, "old.txt"));
    git(dir, ["rm", "-q", "gone.txt"]);
    writeFileSync(path.join(dir, "notes ü.txt"), "untracked unicode\n");
    writeFileSync(path.join(dir, "new\nline.txt"), "untracked newline\n");
    writeFileSync(path.join(dir, "debug.log"), "ignored: never carried\n");
    const before = checkoutFingerprint(dir);

    const result = await world.run(["run", "build", "add the feature", "--carry-dirty"]);
    expect(result.stderr).toBe("");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(checkoutFingerprint(dir)).toEqual(before);
    const branch = `sssf/build/${adwId}`;
    expect(world.session(adwId)).toMatchObject({ branch, base_ref: base });

    // Two commits: sssf's carry commit, then the builder's, holding only the builder's file.
    expect(
      git(dir, ["log", "--format=%s|%an <%ae>", `${base}..${branch}`])
        .trim()
        .split("\n"),
    ).toEqual(["Add the feature|Operator <operator@example.test>", `${CARRY_SUBJECT}|sssf <sssf@localhost>`]);
    expect(git(dir, ["show", "--name-only", "--format=", branch]).trim()).toBe("src/feature.js");
    expect(zList(dir, ["diff", "--name-only", "-z", "--no-renames", base, `${branch}~1`])).toEqual(
      [
        "gone.txt",
        "new\nline.txt",
        "notes ü.txt",
        "old.txt",
        "src/app.js",
        "src/util.js",
        "staged new.txt",
      ].sort(),
    );
    expect(git(dir, ["show", `${branch}~1:src/util.js`])).toBe("export const util = 3;\n");
    expect(git(dir, ["show", `${branch}~1:new\nline.txt`])).toBe("untracked newline\n");
    expect(git(dir, ["ls-tree", "--name-only", `${branch}~1`])).not.toContain("debug.log");
    const worktree = world.worktree(adwId);
    expect(existsSync(path.join(worktree, "old.txt"))).toBe(false);
    expect(readFileSync(path.join(worktree, "notes ü.txt"), "utf8")).toBe("untracked unicode\n");
    expect(existsSync(path.join(worktree, "debug.log"))).toBe(false);
    expect(git(worktree, ["status", "--porcelain"]).trim()).toBe("?? node_modules");

    const carriedLine = result.stdout.split("\n").find((l) => l.includes("carried 7 uncommitted files"));
    expect(carriedLine).toContain("(sssf's own commit, not the run's)");
    expect(result.stdout).not.toContain("are not in this run's worktree");
    const [event] = logEvents(world, adwId, "carried 7");
    expect(event).toMatchObject({
      carried: true,
      commit: git(dir, ["rev-parse", `${branch}~1`]).trim(),
      files: [
        "gone.txt",
        "new\nline.txt",
        "notes ü.txt",
        "old.txt",
        "src/app.js",
        "src/util.js",
        "staged new.txt",
      ],
      deleted: ["gone.txt", "old.txt"],
      staged: ["gone.txt", "src/util.js", "staged new.txt"],
      untracked: ["new\nline.txt", "notes ü.txt"],
    });
    expect(result.stdout).toContain(`git log --oneline ${base.slice(0, 12)}..${branch}`);
  });

  it("on a read-only accepted run removes the branch, its changes being in the checkout still", async () => {
    world = new WorktreeWorld([lookTurn]);
    world.dirtyTheCheckout();
    const before = checkoutFingerprint(world.dir);
    const result = await world.run(["run", "prompt", "look", "--carry-dirty"]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const adwId = adwIdFrom(result.stdout);
    expect(result.stdout).toContain("carried 3 uncommitted files");
    expect(result.stdout).toContain(`no commits; branch sssf/prompt/${adwId} removed, with its worktree`);
    expect(git(world.dir, ["branch", "--list", "sssf/*"]).trim()).toBe("");
    expect(existsSync(world.worktree(adwId))).toBe(false);
    expect(checkoutFingerprint(world.dir)).toEqual(before);
  });

  it("is refused before anything exists: in place, off HEAD, with --merge, on a rejoin", async () => {
    world = new WorktreeWorld([lookTurn]);
    git(world.dir, ["commit", "-q", "--allow-empty", "-m", "second"]);
    world.dirtyTheCheckout();
    const cases: [string[], string][] = [
      [["--in-place"], "--carry-dirty: an --in-place run has no branch of its own"],
      [["--base", "HEAD~1"], "--carry-dirty: the checkout's uncommitted changes are on top of HEAD"],
      [["--merge"], "--carry-dirty: with --merge the carried changes would land on your branch"],
    ];
    for (const [flags, message] of cases) {
      const refused = await world.run(["run", "prompt", "look", "--carry-dirty", ...flags]);
      expect(refused.code, refused.stdout + refused.stderr).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    expect(existsSync(path.join(world.dir, "adws/adw_data/.worktrees"))).toBe(false);
    expect(git(world.dir, ["branch", "--list", "sssf/*"]).trim()).toBe("");

    world.script([{ reply: JSON.stringify({ status: "fail", summary: "could not" }) }]);
    const failed = await world.run(["run", "prompt", "look"]);
    const adwId = adwIdFrom(failed.stdout);
    const rejoin = await world.run(["run", "prompt", "again", "--adw-id", adwId, "--carry-dirty"]);
    expect(rejoin.code, rejoin.stdout + rejoin.stderr).toBe(2);
    expect(rejoin.stderr).toContain(`--carry-dirty: session ${adwId} already has its worktree`);
  });
});
