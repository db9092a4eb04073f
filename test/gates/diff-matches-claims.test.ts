import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { diffSnapshots, snapshotWorkingTree } from "../../src/code/working-tree.js";
import { diffMatchesClaims } from "../../src/gates/diff-matches-claims.js";
import type { PathChange } from "../../src/gates/gate.js";
import { initRepo, makeTempDir, removeTempDir, writeFiles } from "../code/fixtures.js";
import { gateContext } from "./gate-context.js";

let dir = "";
afterEach(() => removeTempDir(dir));

const changes: PathChange[] = [
  { path: "src/server.ts", change: "modified" },
  { path: "src/legacy.ts", change: "deleted" },
  { path: "src/routes/health.ts", change: "renamed", previousPath: "src/health.ts" },
  { path: "test/health.test.ts", change: "added" },
];

describe("diffMatchesClaims", () => {
  it("passes when the claims equal the changes, deletions and both rename paths included", async () => {
    dir = makeTempDir("diff");
    const changed_files = [
      "src/server.ts",
      "./src/legacy.ts",
      "src/health.ts",
      "src/routes/health.ts",
      path.join(dir, "test/health.test.ts"),
    ];
    const report = await diffMatchesClaims.run({ changed_files }, gateContext(dir, { changes }));
    expect(diffMatchesClaims.usesPhaseChanges).toBe(true);
    expect(report.ok).toBe(true);
    expect(report.checks).toEqual([
      { item: "src/health.ts", ok: true, note: "renamed to src/routes/health.ts" },
      { item: "src/legacy.ts", ok: true, note: "deleted" },
      { item: "src/routes/health.ts", ok: true, note: "renamed from src/health.ts" },
      { item: "src/server.ts", ok: true, note: "modified" },
      { item: "test/health.test.ts", ok: true, note: "added" },
    ]);
  });

  it("fails claimed-but-unchanged, changed-but-unclaimed and escaping claims", async () => {
    dir = makeTempDir("diff");
    const changed_files = ["src/server.ts", "src/routes/health.ts", "README.md", "../elsewhere.ts"];
    const report = await diffMatchesClaims.run({ changed_files }, gateContext(dir, { changes }));
    expect(report.ok).toBe(false);
    expect(report.violations).toEqual([
      "../elsewhere.ts: escapes the repo root",
      "README.md: claimed but not changed",
      "src/health.ts: changed but not claimed (renamed to src/routes/health.ts)",
      "src/legacy.ts: changed but not claimed (deleted)",
      "test/health.test.ts: changed but not claimed (added)",
    ]);
  });

  it("passes with one check when nothing was claimed or changed", async () => {
    dir = makeTempDir("diff");
    const report = await diffMatchesClaims.run({ changed_files: [] }, gateContext(dir));
    expect(report.checks).toEqual([{ item: "changed_files", ok: true, note: "none claimed, none changed" }]);
  });

  it("checks a real phase in a git repository", async () => {
    dir = makeTempDir("diff");
    initRepo(dir, { "src/a.ts": "a\n", "src/b.ts": "b\n", "src/c.ts": "export const c = 3;\n" });
    writeFiles(dir, { "notes.txt": "dirty before the phase\n" });
    const before = await snapshotWorkingTree(dir);
    writeFiles(dir, { "src/a.ts": "a2\n", "src/new.ts": "n\n" });
    fs.rmSync(path.join(dir, "src/b.ts"));
    fs.renameSync(path.join(dir, "src/c.ts"), path.join(dir, "src/d.ts"));
    const context = gateContext(dir, {
      changes: async () => diffSnapshots(before, await snapshotWorkingTree(dir)),
    });
    const envelope = { changed_files: ["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts", "src/new.ts"] };
    const report = await diffMatchesClaims.run(envelope, context);
    expect(report.violations).toEqual([]);
    expect(report.checks.map((c) => c.note)).toEqual([
      "modified",
      "deleted",
      "renamed to src/d.ts",
      "renamed from src/c.ts",
      "added",
    ]);
    const missing = await diffMatchesClaims.run({ changed_files: ["src/a.ts", "notes.txt"] }, context);
    expect(missing.violations).toEqual([
      "notes.txt: claimed but not changed",
      "src/b.ts: changed but not claimed (deleted)",
      "src/c.ts: changed but not claimed (renamed to src/d.ts)",
      "src/d.ts: changed but not claimed (renamed from src/c.ts)",
      "src/new.ts: changed but not claimed (added)",
    ]);
  });
});
