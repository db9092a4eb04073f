import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FILE_TEXT_LIMIT, type FileText, type RunChanges } from "../../src/ui/server/api-types.js";
import { at, sessionRow } from "../trace/trace-fixtures.js";
import { BASE, envelope, makeRepo, seedBuildRun } from "./feature-fixtures.js";
import { getJson, TraceWorld } from "./ui-fixtures.js";

let world: TraceWorld;
beforeEach(async () => {
  world = await TraceWorld.open();
});
afterEach(() => world.cleanup());

const ADW = "chg00001";

describe("a run's diff and commits", () => {
  it("lists the commits and saved diffs, and serves the total diff and each commit's, redacted", async () => {
    const repo = makeRepo(world.dir, ADW);
    seedBuildRun(world, ADW, repo);
    const ui = await world.app();
    const changes = await getJson<RunChanges>(ui, `/api/sessions/${ADW}/changes`);
    expect(changes.total).toBe(true);
    expect(changes.branch).toBe(repo.branch);
    expect(changes.commits.map((c) => [c.sha, c.subject, c.files])).toEqual([
      [repo.first, "change b", ["app.ts", "secret.env"]],
      [repo.second, "add new.ts", ["new.ts"]],
    ]);
    expect(changes.phase_diffs).toHaveLength(1);
    expect(changes.phase_diffs[0]?.file).toBe(path.join("changes", "p02-commit.diff"));

    const total = await getJson<FileText>(ui, `/api/sessions/${ADW}/diff`);
    expect(total.source).toBe(`git diff ${repo.base}...${repo.branch}`);
    expect(total.cut).toBe(0);
    expect(total.text).toContain("diff --git a/app.ts b/app.ts");
    expect(total.text).toContain("+export const b = 3;");
    expect(total.text).toContain("diff --git a/new.ts b/new.ts");
    expect(total.text).toContain("OPENAI_API_KEY=[redacted:openai-api-key]");
    expect(total.text).not.toContain("sk-abcdefghijklmnopqrstuvwxyz");

    const first = await getJson<FileText>(ui, `/api/sessions/${ADW}/commits/${repo.first}`);
    expect(first.text).toContain(`commit ${repo.first}`);
    expect(first.text).toContain("change b");
    expect(first.text).toContain("-export const b = 2;");
    expect(first.text).not.toContain("new.ts");
    expect(first.text).not.toContain("sk-abcdefghijklmnopqrstuvwxyz");
    // A short sha of a logged commit works too.
    const short = await getJson<FileText>(ui, `/api/sessions/${ADW}/commits/${repo.second.slice(0, 12)}`);
    expect(short.text).toContain("+export const line");

    const saved = await getJson<FileText>(ui, `/api/sessions/${ADW}/phases/ph_${ADW}_2/diff`);
    expect(saved.source).toBe(path.join("changes", "p02-commit.diff"));
    expect(saved.text).toContain("+export const b = 3;");
    expect(saved.text).toContain("token [redacted:github-pat]");
  });

  it("refuses commits the run did not make, option-like refs, and unknown sessions or phases", async () => {
    const repo = makeRepo(world.dir, ADW);
    seedBuildRun(world, ADW, repo);
    const ui = await world.app();
    // The base commit exists in the repo but is not one of the run's commits.
    await getJson(ui, `/api/sessions/${ADW}/commits/${repo.base}`, 404);
    await getJson(ui, `/api/sessions/${ADW}/commits/--output=x`, 404);
    await getJson(ui, `/api/sessions/${ADW}/commits/HEAD`, 404);
    await getJson(ui, "/api/sessions/nope0000/diff", 404);
    await getJson(ui, "/api/sessions/nope0000/changes", 404);
    await getJson(ui, `/api/sessions/${ADW}/phases/ph_${ADW}_1/diff`, 404);

    world.write({
      table: "sessions",
      row: sessionRow("inject01", at(BASE, 0), {
        cwd: repo.repo,
        checkout: repo.repo,
        base_ref: "--output=/tmp/x",
        branch: repo.branch,
      }),
    });
    await getJson(ui, "/api/sessions/inject01/diff", 404);
    world.write({
      table: "sessions",
      row: sessionRow("inplace1", at(BASE, 0), { base_ref: null, branch: null, worktree: null }),
    });
    expect((await getJson<RunChanges>(ui, "/api/sessions/inplace1/changes")).total).toBe(false);
    await getJson(ui, "/api/sessions/inplace1/diff", 404);
  });

  it("says so when git cannot answer: a deleted branch, a repository that is gone", async () => {
    const repo = makeRepo(world.dir, ADW);
    seedBuildRun(world, ADW, repo);
    world.write({
      table: "sessions",
      row: sessionRow("gone0001", at(BASE, 0), {
        cwd: path.join(world.dir, "missing"),
        checkout: path.join(world.dir, "missing"),
        worktree: null,
      }),
    });
    world.write({
      table: "sessions",
      row: sessionRow("nobranch", at(BASE, 0), {
        cwd: repo.repo,
        checkout: repo.repo,
        branch: "sssf/build/deleted",
        base_ref: repo.base,
      }),
    });
    const ui = await world.app();
    expect((await getJson<FileText>(ui, "/api/sessions/gone0001/diff")).note).toBe(
      "the run's repository is gone",
    );
    const deleted = await getJson<FileText>(ui, "/api/sessions/nobranch/diff");
    expect(deleted.text).toBe("");
    expect(deleted.note).toMatch(/git diff failed/);
  });

  it("cuts a big diff to the text limit and says how long it was", async () => {
    const repo = makeRepo(world.dir, ADW, 15_000);
    seedBuildRun(world, ADW, repo);
    const ui = await world.app();
    const total = await getJson<FileText>(ui, `/api/sessions/${ADW}/diff`);
    expect(total.cut).toBe(1);
    expect(total.text.length).toBeLessThanOrEqual(FILE_TEXT_LIMIT);
    expect(total.total_chars).toBeGreaterThan(FILE_TEXT_LIMIT);
    expect(total.text.endsWith("\n")).toBe(true);
  });

  it("never reads a saved diff outside the session directory, through a path or a symlink", async () => {
    const repo = makeRepo(world.dir, ADW);
    const { session } = seedBuildRun(world, ADW, repo);
    const outside = path.join(world.dir, "outside.diff");
    writeFileSync(outside, "diff --git a/x b/x\n+stolen\n");
    const phase = `ph_${ADW}_2`;
    const ui = await world.app();
    for (const [i, diffPath] of [outside, "../../outside.diff", `${session}/../../outside.diff`].entries()) {
      world.write({
        table: "envelopes",
        row: envelope(
          ADW,
          `${ADW}-changes`,
          phase,
          "ChangesOutput",
          { diff_path: diffPath },
          at(BASE, 62_500 + i),
        ),
      });
      const changes = await getJson<RunChanges>(ui, `/api/sessions/${ADW}/changes`);
      expect(changes.phase_diffs[0]?.file, diffPath).toBeNull();
      await getJson(ui, `/api/sessions/${ADW}/phases/${phase}/diff`, 404);
    }
    mkdirSync(path.join(session, "changes"), { recursive: true });
    symlinkSync(outside, path.join(session, "changes", "link.diff"));
    world.write({
      table: "envelopes",
      row: envelope(
        ADW,
        `${ADW}-changes`,
        phase,
        "ChangesOutput",
        { diff_path: "changes/link.diff" },
        at(BASE, 62_600),
      ),
    });
    await getJson(ui, `/api/sessions/${ADW}/phases/${phase}/diff`, 404);
    // A session directory named by a traversing id is never looked for: the id is refused as malformed.
    const traversing = await getJson<{ error: string }>(
      ui,
      `/api/sessions/..%2F..%2Fetc/phases/${phase}/diff`,
      400,
    );
    expect(traversing.error).toContain("adw_id");
  });
});
