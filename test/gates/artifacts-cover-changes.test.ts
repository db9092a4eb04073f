import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { diffSnapshots, snapshotWorkingTree } from "../../src/code/working-tree.js";
import { artifactsCoverChanges } from "../../src/gates/artifacts-cover-changes.js";
import type { GateContext, PathChange } from "../../src/gates/gate.js";
import { gates } from "../../src/gates/index.js";
import { initRepo, makeTempDir, removeTempDir, writeFiles } from "../code/fixtures.js";
import { gateContext } from "./gate-context.js";

let dir = "";
afterEach(() => {
  if (dir !== "") removeTempDir(dir);
  dir = "";
});

const changes: PathChange[] = [
  { path: "src/theme/toggle.ts", change: "added" },
  { path: "src/theme/persist.ts", change: "added" },
  { path: "src/main.ts", change: "modified" },
  { path: "openspec/changes/add-dark-mode/tasks.md", change: "modified" },
];

const report = (artifacts: string[], summary = "Implemented 4 tasks.") => ({
  artifacts,
  summary,
  next_recommended: "Ready for sdd-verify.",
  risks: [],
});

describe("artifactsCoverChanges", () => {
  it("passes when every changed path is listed, or lies in a listed folder", async () => {
    dir = makeTempDir("cover");
    const artifacts = [
      "src/theme/",
      "./src/main.ts",
      path.join(dir, "openspec/changes/add-dark-mode/tasks.md"),
    ];
    const result = await artifactsCoverChanges.run(report(artifacts), gateContext(dir, { changes }));
    expect(artifactsCoverChanges.usesPhaseChanges).toBe(true);
    expect(gates.artifactsCoverChanges).toBe(artifactsCoverChanges);
    expect(result.ok).toBe(true);
    expect(result.checks).toEqual([
      { item: "openspec/changes/add-dark-mode/tasks.md", ok: true, note: "modified, listed" },
      { item: "src/main.ts", ok: true, note: "modified, listed" },
      { item: "src/theme/persist.ts", ok: true, note: "added, in src/theme/" },
      { item: "src/theme/toggle.ts", ok: true, note: "added, in src/theme/" },
    ]);
  });

  it("fails each changed path the report does not list", async () => {
    dir = makeTempDir("cover");
    const result = await artifactsCoverChanges.run(
      report(["src/theme/toggle.ts", "src/theme/persist.ts"]),
      gateContext(dir, { changes }),
    );
    expect(result.ok).toBe(false);
    expect(result.violations).toEqual([
      "openspec/changes/add-dark-mode/tasks.md: modified but not in Artifacts: list it (or a folder holding it) under ### Artifacts",
      "src/main.ts: modified but not in Artifacts: list it (or a folder holding it) under ### Artifacts",
    ]);
  });

  it("a folder covers only what lies inside it; the root and observation ids cover nothing", async () => {
    dir = makeTempDir("cover");
    const context = gateContext(dir, { changes: [{ path: "src/themes.ts", change: "added" }] });
    for (const artifacts of [["src/theme"], ["."], ["./"], ["#obs_123"], ["../src/themes.ts"]]) {
      const result = await artifactsCoverChanges.run(report(artifacts), context);
      expect(result.violations).toEqual([
        "src/themes.ts: added but not in Artifacts: list it (or a folder holding it) under ### Artifacts",
      ]);
    }
  });

  it("a deleted file, or a rename's old path, is covered when the report names it", async () => {
    dir = makeTempDir("cover");
    const removed: PathChange[] = [
      { path: "src/legacy.ts", change: "deleted" },
      { path: "src/theme/index.ts", change: "renamed", previousPath: "src/theme.ts" },
    ];
    const context = gateContext(dir, { changes: removed });
    const named = await artifactsCoverChanges.run(
      report(["src/theme/index.ts"], "Moved src/theme.ts into src/theme/ and removed src/legacy.ts."),
      context,
    );
    expect(named.checks).toEqual([
      { item: "src/legacy.ts", ok: true, note: "deleted, named in the report" },
      { item: "src/theme.ts", ok: true, note: "renamed to src/theme/index.ts, named in the report" },
      { item: "src/theme/index.ts", ok: true, note: "renamed from src/theme.ts, listed" },
    ]);
    const silent = await artifactsCoverChanges.run(
      report(["src/theme/index.ts"], "Tidied src/theme.tsx."),
      context,
    );
    expect(silent.violations).toEqual([
      "src/legacy.ts: deleted but the report does not say so: name it in the Summary (a deleted file cannot be listed as an artifact)",
      "src/theme.ts: renamed to src/theme/index.ts but the report does not say so: name it in the Summary (a deleted file cannot be listed as an artifact)",
    ]);
    const inFolder = await artifactsCoverChanges.run(report(["src/"]), context);
    expect(inFolder.ok).toBe(true);
  });

  it("leaves out sssf's own files: the context handoff and the data folder of the session", async () => {
    dir = makeTempDir("cover");
    const own: PathChange[] = [
      { path: "adws/adw_data/sessions/a1b2c3d4/context_handoff/notes.md", change: "added" },
      { path: "adws/adw_data/sessions/a1b2c3d4/sdd-apply/envelope.json", change: "added" },
      { path: "adws/adw_data/prompt_engineering/sdd-apply/user.md", change: "modified" },
      { path: "src/a.ts", change: "added" },
    ];
    const context: GateContext = {
      ...gateContext(dir, { changes: own }),
      contextHandoffDir: path.join(dir, "adws/adw_data/sessions/a1b2c3d4/context_handoff"),
    };
    const result = await artifactsCoverChanges.run(report(["src/a.ts"]), context);
    expect(result.checks).toEqual([{ item: "src/a.ts", ok: true, note: "added, listed" }]);
    const handoffOnly = await artifactsCoverChanges.run(
      report([]),
      gateContext(dir, { changes: [{ path: "context_handoff/notes.md", change: "added" }] }),
    );
    expect(handoffOnly.checks).toEqual([{ item: "artifacts", ok: true, note: "the phase changed no file" }]);
  });

  it("never leaves out the repo itself: data_dir at the repo root keeps only the session out", async () => {
    dir = makeTempDir("cover");
    const context: GateContext = {
      ...gateContext(dir, {
        changes: [
          { path: "sessions/a1b2c3d4/sdd-apply/envelope.json", change: "added" },
          { path: "src/a.ts", change: "added" },
        ],
      }),
      contextHandoffDir: path.join(dir, "sessions/a1b2c3d4/context_handoff"),
    };
    const result = await artifactsCoverChanges.run(report([]), context);
    expect(result.violations).toEqual([
      "src/a.ts: added but not in Artifacts: list it (or a folder holding it) under ### Artifacts",
    ]);
  });

  it("passes with one check when the phase changed nothing", async () => {
    dir = makeTempDir("cover");
    const result = await artifactsCoverChanges.run(report(["docs/old.md"]), gateContext(dir));
    expect(result.checks).toEqual([{ item: "artifacts", ok: true, note: "the phase changed no file" }]);
  });

  it("checks a real phase in a git repository", async () => {
    dir = makeTempDir("cover");
    initRepo(dir, { "src/a.ts": "a\n", "src/b.ts": "b\n", "openspec/changes/x/tasks.md": "- [ ] 1.1\n" });
    writeFiles(dir, { "notes.txt": "dirty before the phase\n" });
    const before = await snapshotWorkingTree(dir);
    writeFiles(dir, {
      "src/a.ts": "a2\n",
      "src/new/c.ts": "c\n",
      "openspec/changes/x/tasks.md": "- [x] 1.1\n",
    });
    fs.rmSync(path.join(dir, "src/b.ts"));
    const context = gateContext(dir, {
      changes: async () => diffSnapshots(before, await snapshotWorkingTree(dir)),
    });
    const complete = report(
      ["src/a.ts", "src/new/", "openspec/changes/x/tasks.md"],
      "Changed src/a.ts, added src/new/c.ts and deleted src/b.ts.",
    );
    expect((await artifactsCoverChanges.run(complete, context)).violations).toEqual([]);
    const partial = await artifactsCoverChanges.run(report(["src/a.ts", "notes.txt"]), context);
    expect(partial.violations.map((violation) => violation.split(":")[0])).toEqual([
      "openspec/changes/x/tasks.md",
      "src/b.ts",
      "src/new/c.ts",
    ]);
  });
});
