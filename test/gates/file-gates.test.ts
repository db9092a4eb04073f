import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gates } from "../../src/gates/index.js";
import { makeTempDir, removeTempDir, writeFiles } from "../code/fixtures.js";
import { gateContext } from "./gate-context.js";

let dir = "";
afterEach(() => removeTempDir(dir));

function repo(files: Record<string, string>): string {
  dir = makeTempDir("gates");
  writeFiles(dir, files);
  return dir;
}

describe("artifactsExist", () => {
  it("passes with the size of each existing artifact", async () => {
    const root = repo({ "context_handoff/plan.md": "x".repeat(312) });
    fs.mkdirSync(path.join(root, "out"));
    const report = await gates.artifactsExist.run(
      { artifacts: ["context_handoff/plan.md", "out"] },
      gateContext(root),
    );
    expect(report.ok).toBe(true);
    expect(report.checks).toEqual([
      { item: "context_handoff/plan.md", ok: true, note: "exists, 312 bytes" },
      { item: "out", ok: true, note: "exists, directory" },
    ]);
  });

  it("records a passing check when nothing is claimed", async () => {
    const report = await gates.artifactsExist.run({ artifacts: [] }, gateContext(repo({})));
    expect(report.checks).toEqual([{ item: "artifacts", ok: true, note: "no artifacts claimed" }]);
  });

  it("fails missing artifacts and paths escaping the root", async () => {
    const root = repo({});
    const outside = makeTempDir("outside");
    try {
      fs.symlinkSync(outside, path.join(root, "link"));
      writeFiles(outside, { "f.md": "f" });
      const artifacts = ["missing.md", "../x", "/etc/passwd", "link/f.md"];
      const report = await gates.artifactsExist.run({ artifacts }, gateContext(root));
      expect(report.ok).toBe(false);
      expect(report.violations).toEqual([
        "missing.md: does not exist",
        "../x: escapes the repo root",
        "/etc/passwd: escapes the repo root",
        "link/f.md: escapes the repo root",
      ]);
    } finally {
      removeTempDir(outside);
    }
  });
});

describe("artifacts in context_handoff outside the repo (worktree runs)", () => {
  it("accepts absolute paths inside the session's context_handoff, still refuses other outside paths", async () => {
    const root = repo({});
    const session = makeTempDir("session");
    try {
      writeFiles(session, { "context_handoff/notes.md": "notes" });
      const handoff = path.join(session, "context_handoff");
      const context = { ...gateContext(root), contextHandoffDir: handoff };
      const artifacts = [path.join(handoff, "notes.md"), path.join(session, "other.md"), "../x"];
      const exists = await gates.artifactsExist.run({ artifacts }, context);
      expect(exists.violations).toEqual([
        `${path.join(session, "other.md")}: escapes the repo root`,
        "../x: escapes the repo root",
      ]);
      const nonEmpty = await gates.filesNonEmpty.run(
        { artifacts: [path.join(handoff, "notes.md")] },
        context,
      );
      expect(nonEmpty.ok).toBe(true);
    } finally {
      removeTempDir(session);
    }
  });
});

describe("filesNonEmpty", () => {
  it("passes non-empty files and skips a claimed deletion with a note", async () => {
    const root = repo({ "plan.md": "plan", "src/a.ts": "export {};\n" });
    const envelope = { artifacts: ["plan.md"], changed_files: ["src/a.ts", "src/removed.ts", "./plan.md"] };
    const report = await gates.filesNonEmpty.run(envelope, gateContext(root));
    expect(report.ok).toBe(true);
    expect(report.checks).toEqual([
      { item: "plan.md", ok: true, note: "4 bytes" },
      { item: "src/a.ts", ok: true, note: "11 bytes" },
      { item: "src/removed.ts", ok: true, note: "does not exist: claimed deletion, skipped" },
    ]);
  });

  it("fails empty files, directories, missing artifacts and escapes", async () => {
    const root = repo({ "empty.md": "", "dir/x": "x" });
    const envelope = { artifacts: ["empty.md", "dir", "gone.md"], changed_files: ["../outside.ts"] };
    const report = await gates.filesNonEmpty.run(envelope, gateContext(root));
    expect(report.violations).toEqual([
      "empty.md: empty file",
      "dir: is a directory, not a file",
      "gone.md: does not exist",
      "../outside.ts: escapes the repo root",
    ]);
  });

  it("records a passing check when no file is claimed", async () => {
    const report = await gates.filesNonEmpty.run({}, gateContext(repo({})));
    expect(report.checks).toEqual([{ item: "files", ok: true, note: "no files claimed" }]);
  });
});

describe("jsonParses", () => {
  it("passes parseable .json artifacts and ignores other files", async () => {
    const root = repo({
      "out/result.json": '{"a":1,"b":[2],"c":null}',
      "out/list.JSON": "[1,2]",
      "notes.md": "{",
    });
    const envelope = { artifacts: ["out/result.json", "out/list.JSON", "notes.md"] };
    const report = await gates.jsonParses.run(envelope, gateContext(root));
    expect(report.checks).toEqual([
      { item: "out/result.json", ok: true, note: "parses: object with 3 keys, 24 bytes" },
      { item: "out/list.JSON", ok: true, note: "parses: array of 2, 5 bytes" },
    ]);
  });

  it("fails invalid, missing and escaping .json artifacts", async () => {
    const root = repo({ "bad.json": '{"a":' });
    const envelope = { artifacts: ["bad.json", "missing.json", "../../etc/x.json"] };
    const report = await gates.jsonParses.run(envelope, gateContext(root));
    expect(report.ok).toBe(false);
    expect(report.checks[0]).toMatchObject({ item: "bad.json", ok: false });
    expect(report.checks[0]?.note).toMatch(/^invalid JSON: /);
    expect(report.violations.slice(1)).toEqual([
      "missing.json: does not exist",
      "../../etc/x.json: escapes the repo root",
    ]);
  });

  it("records a passing check when no .json artifact is claimed", async () => {
    const report = await gates.jsonParses.run({ artifacts: ["a.md"] }, gateContext(repo({ "a.md": "a" })));
    expect(report.checks).toEqual([{ item: "artifacts", ok: true, note: "no .json artifacts claimed" }]);
  });
});
