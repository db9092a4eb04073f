/**
 * The reviewer's routes over real `build-test` runs of the built CLI (a fix that works, fixes that
 * never do, a suite failing at the base): why each ended, what each phase changed and the fix against
 * the first build (from the engine's own checkpoints), the final envelope, the commit's true file
 * count; then the same questions once the objects are gone.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileText, RunChanges, SessionsPage } from "../../src/ui/server/api-types.js";
import { createUiApp, type UiApp } from "../../src/ui/server/app.js";
import type {
  BaseDrift,
  FinalEnvelope,
  PhaseChanges,
  RunOutcome,
} from "../../src/ui/server/review/review-types.js";
import { git } from "../worktree/worktree-world.js";
import { baselineRun, exhaustedRun, fixedRun, type ReviewRun } from "./review-runs.js";
import { getJson } from "./ui-fixtures.js";

let fixed: ReviewRun;
let exhausted: ReviewRun;
let baseline: ReviewRun;
const apps: UiApp[] = [];

async function appOf(run: ReviewRun): Promise<UiApp> {
  const data = path.join(run.world.dir, "adws/adw_data");
  const ui = await createUiApp({
    dbPath: path.join(data, "sssf.db"),
    sessionsDir: path.join(data, "sessions"),
    clientDir: path.join(data, "no-client"),
  });
  apps.push(ui);
  return ui;
}

beforeAll(async () => {
  // One at a time: two cores are shared by every engineer's tests.
  fixed = await fixedRun();
  exhausted = await exhaustedRun();
  baseline = await baselineRun();
}, 300_000);
afterAll(async () => {
  for (const ui of apps) await ui.close();
  for (const run of [fixed, exhausted, baseline]) run?.world.cleanup();
});

const phaseId = (run: ReviewRun, n: number) => `${run.adwId}-p${String(n).padStart(2, "0")}`;

describe("why a run ended", () => {
  it("says accepted, fixes exhausted and baseline stop from the trace, in the list and per run", async () => {
    const okUi = await appOf(fixed);
    expect(await getJson<RunOutcome>(okUi, `/api/sessions/${fixed.adwId}/outcome`)).toEqual({
      adw_id: fixed.adwId,
      kind: "accepted",
      label: "accepted",
      detail: "tests pass",
      phase_id: null,
    });

    const exUi = await appOf(exhausted);
    const ex = await getJson<RunOutcome>(exUi, `/api/sessions/${exhausted.adwId}/outcome`);
    expect(ex).toEqual({
      adw_id: exhausted.adwId,
      kind: "fixes_exhausted",
      label: "fixes exhausted (2 rounds)",
      detail: "tests still fail after 2 fix(es)",
      phase_id: phaseId(exhausted, 7),
    });
    const page = await getJson<SessionsPage>(exUi, "/api/sessions");
    expect(page.outcomes).toEqual({ [exhausted.adwId]: ex });

    const baseUi = await appOf(baseline);
    const stop = await getJson<RunOutcome>(baseUi, `/api/sessions/${baseline.adwId}/outcome`);
    expect(stop.kind).toBe("baseline_stop");
    expect(stop.label).toBe("test failed before the change");
    expect(stop.phase_id).toBe(phaseId(baseline, 3));
    expect(stop.detail).toMatch(
      /^test failing before any change \(baseline at [0-9a-f]{12}: exit 1 there too\)/,
    );
  });

  it("is a 404 for an unknown session and a 400 naming adw_id for a malformed one", async () => {
    const ui = await appOf(fixed);
    expect(await getJson(ui, "/api/sessions/nosuch01/outcome", 404)).toEqual({
      error: "no such session: nosuch01",
    });
    const bad = await getJson<{ error: string }>(ui, "/api/sessions/..%2Fetc/outcome", 400);
    expect(bad.error).toMatch(/^adw_id: expected a session id/);
  });
});

describe("what each phase changed", () => {
  it("lists the build and the fix with their files, and diffs each and the fix against the first build", async () => {
    const ui = await appOf(fixed);
    const changes = await getJson<PhaseChanges>(ui, `/api/sessions/${fixed.adwId}/phase-changes`);
    expect(changes.note).toBeNull();
    expect(changes.phases.map((p) => [p.number, p.name, p.changed, p.files])).toEqual([
      [2, "build", true, ["src/app.js", "src/feature.js"]],
      [3, "test", false, []],
      [4, "fix", true, ["src/app.js"]],
      [5, "test", false, []],
      [6, "commit", false, []],
    ]);
    // The last phase ends at the branch tip: the commit holds exactly the tree the phase left.
    const tip = git(fixed.world.dir, ["rev-parse", `sssf/build-test/${fixed.adwId}`]).trim();
    expect(changes.phases.at(-1)?.after).toBe(tip);
    expect(changes.fix_vs_build).toEqual({ from: phaseId(fixed, 2), to: phaseId(fixed, 4) });

    const build = await getJson<FileText>(
      ui,
      `/api/sessions/${fixed.adwId}/phase-changes/diff?phase=${phaseId(fixed, 2)}`,
    );
    expect(build.note).toBeUndefined();
    expect(build.text).toContain('+export const app = "broken";');
    expect(build.text).toContain("diff --git a/src/feature.js b/src/feature.js");
    expect(build.source).toMatch(
      /^git diff \(before and after phase #2 build\): [0-9a-f]{12}\.\.[0-9a-f]{12}$/,
    );

    const pair = changes.fix_vs_build as { from: string; to: string };
    const fixVsBuild = await getJson<FileText>(
      ui,
      `/api/sessions/${fixed.adwId}/phase-changes/diff?from=${pair.from}&to=${pair.to}`,
    );
    expect(fixVsBuild.text).toContain('-export const app = "broken";');
    expect(fixVsBuild.text).toContain('+export const app = "fixed";');
    expect(fixVsBuild.text).not.toContain("feature.js");

    // Fixes that never worked: the comparison ends at the last of them.
    const exUi = await appOf(exhausted);
    const ex = await getJson<PhaseChanges>(exUi, `/api/sessions/${exhausted.adwId}/phase-changes`);
    expect(ex.fix_vs_build).toEqual({ from: phaseId(exhausted, 2), to: phaseId(exhausted, 6) });
    const last = await getJson<FileText>(
      exUi,
      `/api/sessions/${exhausted.adwId}/phase-changes/diff?from=${phaseId(exhausted, 2)}&to=${phaseId(exhausted, 6)}`,
    );
    expect(last.text).toContain('+export const app = "still broken 2";');
    // Its last phase (the failing test) left nothing committed: no tree after it is claimed.
    expect(ex.phases.at(-1)).toMatchObject({ number: 7, name: "test", after: null, changed: null });
    const tail = await getJson<FileText>(
      exUi,
      `/api/sessions/${exhausted.adwId}/phase-changes/diff?from=${phaseId(exhausted, 6)}&to=${phaseId(exhausted, 7)}`,
    );
    expect(tail.text).toBe("");
    expect(tail.note).toMatch(/^no tree after phase #7 test was recorded/);
    // The whole uncommitted attempt: from the run's base to the tree after its last fix.
    const whole = await getJson<FileText>(
      exUi,
      `/api/sessions/${exhausted.adwId}/phase-changes/diff?from=base&to=${phaseId(exhausted, 6)}`,
    );
    expect(whole.text).toContain('+export const app = "still broken 2";');
    expect(whole.text).toContain("diff --git a/src/feature.js b/src/feature.js");
    expect(whole.source).toMatch(/^git diff \(after the run's base, after #6 fix\)/);
  });

  it("answers 400 with a message for bad parameters and 404 for unknown sessions and phases", async () => {
    const ui = await appOf(fixed);
    const at = `/api/sessions/${fixed.adwId}/phase-changes/diff`;
    expect((await getJson<{ error: string }>(ui, `${at}?phase=..%2Fx`, 400)).error).toBe(
      'phase: expected a phase id, got "../x"',
    );
    const either = "expected either phase=<phase id>, or both from=<phase id or base> and to=<phase id>";
    expect((await getJson<{ error: string }>(ui, at, 400)).error).toBe(either);
    expect((await getJson<{ error: string }>(ui, `${at}?from=${phaseId(fixed, 2)}`, 400)).error).toBe(either);
    expect((await getJson<{ error: string }>(ui, `${at}?phase=a&from=b&to=c`, 400)).error).toBe(either);
    expect((await getJson<{ error: string }>(ui, `${at}?phase=${phaseId(fixed, 1)}`, 404)).error).toMatch(
      /^no checkpoint of that phase in this run/,
    );
    expect(await getJson(ui, "/api/sessions/nosuch01/phase-changes", 404)).toEqual({
      error: "no such session: nosuch01",
    });
    expect(await getJson(ui, "/api/sessions/nosuch01/phase-changes/diff?phase=x", 404)).toEqual({
      error: "no such session: nosuch01",
    });
  });
});

describe("how far the base moved", () => {
  it("counts the base's new commits and checks the failed run's work against it with git merge-tree", async () => {
    const ui = await appOf(exhausted);
    const dir = exhausted.world.dir;
    const at = `/api/sessions/${exhausted.adwId}/base-drift`;
    const checkpointAfterLastFix = exhausted.world.sb.query<{ result_json: string }>(
      "SELECT result_json FROM steps WHERE phase_id = ? AND op = 'checkpoint'",
      phaseId(exhausted, 7),
    )[0]?.result_json;
    const work = (JSON.parse(checkpointAfterLastFix ?? "{}") as { commit: string }).commit;
    expect(await getJson<BaseDrift>(ui, at)).toEqual({
      base: "main",
      base_ref: exhausted.world.base,
      base_tip: exhausted.world.base,
      behind: 0,
      conflicts: [],
      work,
      note: null,
    });
    writeFileSync(path.join(dir, "notes.md"), "unrelated\n");
    git(dir, ["add", "notes.md"]);
    git(dir, ["commit", "-q", "-m", "unrelated"]);
    expect(await getJson<BaseDrift>(ui, at)).toMatchObject({ behind: 1, conflicts: [], note: null });
    writeFileSync(path.join(dir, "src/app.js"), 'export const app = "operator";\n');
    git(dir, ["commit", "-q", "-am", "the operator changes the app"]);
    const tip = git(dir, ["rev-parse", "main"]).trim();
    expect(await getJson<BaseDrift>(ui, at)).toMatchObject({
      base_tip: tip,
      behind: 2,
      conflicts: ["src/app.js"],
      note: null,
    });
    // An accepted run: its committed branch is the work.
    const okUi = await appOf(fixed);
    const branchTip = git(fixed.world.dir, ["rev-parse", `sssf/build-test/${fixed.adwId}`]).trim();
    expect(await getJson<BaseDrift>(okUi, `/api/sessions/${fixed.adwId}/base-drift`)).toMatchObject({
      behind: 0,
      work: branchTip,
    });
    expect(await getJson(ui, "/api/sessions/nosuch01/base-drift", 404)).toEqual({
      error: "no such session: nosuch01",
    });
    expect((await getJson<{ error: string }>(ui, "/api/sessions/a%20b/base-drift", 400)).error).toMatch(
      /^adw_id: expected a session id/,
    );
  });
});

describe("the final envelope and the commit's files", () => {
  it("serves the run's last accepted envelope, pretty JSON's source", async () => {
    const ui = await appOf(fixed);
    const found = await getJson<FinalEnvelope>(ui, `/api/sessions/${fixed.adwId}/final-envelope`);
    const [last] = fixed.world.sb.query<{ id: string; output_type: string }>(
      "SELECT id, output_type FROM envelopes WHERE adw_id = ? AND accepted = 1 ORDER BY created_at DESC, id DESC LIMIT 1",
      fixed.adwId,
    );
    expect(found.envelope_id).toBe(last?.id);
    expect(found.standing).toBe("accepted");
    expect(found.output_type).toBe("VerifyOutput");
    expect(found.phase).toBe("test");
    expect(found.envelope).toMatchObject({ suite: "test", passed: true, exit_code: 0 });
    expect(await getJson(ui, "/api/sessions/nosuch01/final-envelope", 404)).toEqual({
      error: "no such session: nosuch01",
    });
  });

  it("counts the files of the run's commit as the engine recorded them (2, not 0)", async () => {
    const ui = await appOf(fixed);
    const changes = await getJson<RunChanges>(ui, `/api/sessions/${fixed.adwId}/changes`);
    expect(changes.commits.map((c) => [c.subject, c.files])).toEqual([
      ["Add the feature", ["src/app.js", "src/feature.js"]],
    ]);
  });
});

describe("once the objects are gone", () => {
  it("says so plainly instead of an empty diff", async () => {
    const ui = await appOf(fixed);
    const dir = fixed.world.dir;
    git(dir, ["worktree", "remove", "--force", fixed.world.worktree(fixed.adwId)]);
    git(dir, ["branch", "-D", `sssf/build-test/${fixed.adwId}`]);
    git(dir, ["reflog", "expire", "--expire=now", "--all"]);
    git(dir, ["gc", "-q", "--prune=now"]);
    const changes = await getJson<PhaseChanges>(ui, `/api/sessions/${fixed.adwId}/phase-changes`);
    expect(changes.note).toBe(
      "the checkpoint commits are gone from the repository (pruned after sssf clean): no per-phase diffs",
    );
    expect(changes.phases.every((p) => p.changed === null)).toBe(true);
    const diff = await getJson<FileText>(
      ui,
      `/api/sessions/${fixed.adwId}/phase-changes/diff?phase=${phaseId(fixed, 2)}`,
    );
    expect(diff.text).toBe("");
    expect(diff.note).toBe("the checkpoint commits are gone from the repository (pruned after sssf clean)");
  });
});
