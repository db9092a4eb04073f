/**
 * `sssf merge <adw_id>` through the built CLI on a real repository: a fast-forward, a merge commit when
 * the base moved, and every refusal (exit 1, one line, the checkout untouched).
 */
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRawSqlite } from "../helpers/raw-sqlite.js";
import { adwIdFrom, envelopeJson } from "../helpers/sandbox.js";
import { buildTurn, checkoutFingerprint, git, WorktreeWorld } from "./worktree-world.js";

let world: WorktreeWorld | undefined;
afterEach(() => {
  world?.cleanup();
  world = undefined;
});

/** An accepted `build` run in a fresh world: the world and the run's id and branch. */
async function acceptedRun(
  turns = [buildTurn()],
): Promise<{ w: WorktreeWorld; adwId: string; branch: string }> {
  const w = new WorktreeWorld(turns);
  world = w;
  const result = await w.run(["run", "build", "add the feature"]);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  const adwId = adwIdFrom(result.stdout);
  return { w, adwId, branch: `sssf/build/${adwId}` };
}

/** Commits `content` to `file` on the checkout's branch (the base moving on). */
function commitOnBase(w: WorktreeWorld, file: string, content: string): string {
  writeFileSync(path.join(w.dir, file), content);
  git(w.dir, ["add", file]);
  git(w.dir, ["commit", "-q", "-m", `base: change ${file}`]);
  return git(w.dir, ["rev-parse", "HEAD"]).trim();
}

const head = (w: WorktreeWorld, ref = "main") => git(w.dir, ["rev-parse", ref]).trim();

describe("sssf merge", () => {
  it("fast-forwards the base to an accepted run's branch, says what landed, records run_merged, and --json prints one object", async () => {
    const { w, adwId, branch } = await acceptedRun();
    const tip = head(w, branch);

    const unknown = await w.run(["merge", "deadbeef"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no session deadbeef");

    // The checkout on another branch: refused, nothing moves.
    git(w.dir, ["switch", "-q", "-c", "elsewhere"]);
    const elsewhere = await w.run(["merge", adwId]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("is on elsewhere, not on main: git switch main first");
    git(w.dir, ["switch", "-q", "main"]);
    const nowhere = await w.run(["merge", adwId, "--into", "nosuch"]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain("branch nosuch does not exist");

    // Uncommitted changes to a file the merge changes: refused, the checkout byte-identical.
    writeFileSync(path.join(w.dir, "src/app.js"), 'export const app = "operator edit";\n');
    const before = checkoutFingerprint(w.dir);
    const dirty = await w.run(["merge", adwId]);
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toContain("uncommitted changes to 1 file the merge changes (src/app.js)");
    expect(checkoutFingerprint(w.dir)).toEqual(before);
    expect(head(w)).toBe(w.base);
    git(w.dir, ["checkout", "--", "src/app.js"]);

    const merged = await w.run(["merge", adwId, "--json"]);
    expect(merged.code, merged.stderr).toBe(0);
    const lines = merged.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const body = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(body).toMatchObject({
      merged: true,
      method: "fast-forward",
      base: "main",
      branch,
      from: w.base,
      head: tip,
      behind: 0,
      conflicts: [],
      files: ["src/app.js", "src/feature.js"],
    });
    expect(head(w)).toBe(tip);
    expect(git(w.dir, ["status", "--porcelain"]).trim()).toBe("");

    const db = openRawSqlite(path.join(w.dir, "adws/adw_data/sssf.db"), { readonly: true });
    const events = db
      .prepare("SELECT name, payload FROM events WHERE adw_id = ? AND type = 'run_merged'")
      .all(adwId) as { name: string; payload: string }[];
    db.close();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]?.payload ?? "{}")).toMatchObject({
      base: "main",
      branch,
      from: w.base,
      to: tip,
      method: "fast-forward",
      files: ["src/app.js", "src/feature.js"],
    });

    const again = await w.run(["merge", adwId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`nothing to merge: main already holds every commit of ${branch}`);
  });

  it("refuses a base that moved and would conflict, naming the file, with the checkout byte-identical", async () => {
    const { w, adwId } = await acceptedRun();
    const moved = commitOnBase(w, "src/app.js", 'export const app = "base moved";\n');
    const before = checkoutFingerprint(w.dir);
    const result = await w.run(["merge", adwId]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("would conflict in src/app.js");
    expect(checkoutFingerprint(w.dir)).toEqual(before);
    expect(head(w)).toBe(moved);

    const json = await w.run(["merge", adwId, "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ merged: false, conflicts: ["src/app.js"], behind: 1 });
  });

  it("with a base that moved cleanly: ff refuses, merge-commit makes a merge commit under the user's identity", async () => {
    const { w, adwId, branch } = await acceptedRun();
    const moved = commitOnBase(w, "README.md", "# moved\n");
    const ff = await w.run(["merge", adwId]);
    expect(ff.code).toBe(1);
    expect(ff.stderr).toContain("a fast-forward is impossible");
    expect(ff.stderr).toContain("merge.strategy: merge-commit");
    expect(head(w)).toBe(moved);

    const config = path.join(w.dir, "adws/adw_sssf_config/sssf.config.yaml");
    const roster = JSON.parse(git(w.dir, ["show", `HEAD:adws/adw_sssf_config/sssf.config.yaml`])) as object;
    writeFileSync(config, JSON.stringify({ ...roster, merge: { strategy: "merge-commit" } }, null, 2));
    const result = await w.run(["merge", adwId]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`merged ${branch} into main (merge-commit): 1 commit, 2 files`);
    const parents = git(w.dir, ["log", "-1", "--format=%P", "main"]).trim().split(" ");
    expect(parents).toEqual([moved, head(w, branch)]);
    expect(git(w.dir, ["log", "-1", "--format=%an <%ae>|%s", "main"]).trim()).toBe(
      `Operator <operator@example.test>|Merge ${branch} into main`,
    );
    // The checkout holds the merge: both sides' files, nothing left uncommitted but the config edit.
    expect(git(w.dir, ["show", "main:README.md"])).toBe("# moved\n");
    expect(git(w.dir, ["status", "--porcelain"]).trim()).toBe("M adws/adw_sssf_config/sssf.config.yaml");
    expect(result.stdout).toContain(`main is now at ${head(w).slice(0, 12)}`);
  });

  it("refuses a run that was not accepted, one still running, and one whose branch is gone", async () => {
    // The builder writes nothing: the suite fails and the run ends not accepted.
    const { w, adwId } = await (async () => {
      const failing = new WorktreeWorld([
        { reply: envelopeJson({ status: "fail", summary: "cannot build it", changed_files: [] }) },
      ]);
      world = failing;
      const result = await failing.run(["run", "build", "add the feature"]);
      expect(result.code).not.toBe(0);
      return { w: failing, adwId: adwIdFrom(result.stdout) };
    })();
    const before = checkoutFingerprint(w.dir);
    const notAccepted = await w.run(["merge", adwId]);
    expect(notAccepted.code).toBe(1);
    expect(notAccepted.stderr).toMatch(/was not accepted \(status fail.*\): only an accepted run is merged/);

    const db = openRawSqlite(path.join(w.dir, "adws/adw_data/sssf.db"));
    db.prepare("UPDATE sessions SET status = 'running', accepted = NULL, pid = ? WHERE adw_id = ?").run(
      process.pid,
      adwId,
    );
    const running = await w.run(["merge", adwId]);
    expect(running.code).toBe(1);
    expect(running.stderr).toContain(`session ${adwId} is still running`);

    db.prepare("UPDATE sessions SET status = 'success', accepted = 1 WHERE adw_id = ?").run(adwId);
    db.close();
    const branch = String(w.session(adwId).branch);
    git(w.dir, ["worktree", "remove", "--force", w.worktree(adwId)]);
    git(w.dir, ["branch", "-D", branch]);
    rmSync(w.worktree(adwId), { recursive: true, force: true });
    const gone = await w.run(["merge", adwId, "--json"]);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout)).toMatchObject({ merged: false, branch_exists: false });
    expect(JSON.parse(gone.stdout).refusal).toContain(`branch ${branch} of session ${adwId} is gone`);
    expect(checkoutFingerprint(w.dir)).toEqual(before);
  });
});
