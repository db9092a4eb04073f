import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { breachLabel, breachReason } from "../../src/boundary/write-boundary-breach.js";
import { isWithin, resolveToolPath, toolCallPaths } from "../../src/boundary/write-boundary-paths.js";
import { compileBoundary, worseRule } from "../../src/boundary/write-boundary-rules.js";
import { REPO_WORKFLOW_GLOBS } from "../../src/config/config-resolve.js";

describe("compileBoundary", () => {
  it("allows everything but protected files with the default writes", () => {
    const judge = compileBoundary({
      writes: ["**"],
      protectedFiles: [".env", ".env.*", "adws/adw_sssf_config/**"],
    });
    expect(judge("src/a.ts")).toBeNull();
    expect(judge(".github/workflows/ci.yml")).toBeNull();
    expect(judge(".env")).toBe("protected");
    expect(judge(".env.local")).toBe("protected");
    expect(judge("adws/adw_sssf_config/sssf.config.yaml")).toBe("protected");
    // A protected glob without a slash names the top level only.
    expect(judge("packages/api/.env")).toBeNull();
  });

  it("limits writes to the globs, with dotfiles matched and protected winning", () => {
    const judge = compileBoundary({
      writes: ["src/**", "test/*.test.ts", "./docs/*.md"],
      protectedFiles: ["src/secret/**"],
    });
    expect(judge("src/a/b/c.ts")).toBeNull();
    expect(judge("src/.hidden")).toBeNull();
    expect(judge("./src/a.ts")).toBeNull();
    expect(judge("test/a.test.ts")).toBeNull();
    expect(judge("test/deep/a.test.ts")).toBe("outside_writes");
    expect(judge("docs/readme.md")).toBeNull();
    expect(judge("README.md")).toBe("outside_writes");
    expect(judge("src/secret/key.pem")).toBe("protected");
  });

  it("judges names holding a newline or another line terminator like any other name", () => {
    const judge = compileBoundary({
      writes: ["src/**", "notes/*.md"],
      protectedFiles: [".env*", "src/secret/**"],
    });
    for (const terminator of ["\n", "\r", "\u2028", "\u2029"]) {
      expect(judge(`src/a${terminator}b.ts`)).toBeNull();
      expect(judge(`notes/x${terminator}y.md`)).toBeNull();
      expect(judge(`.env${terminator}local`)).toBe("protected");
      expect(judge(`src/secret/k${terminator}.pem`)).toBe("protected");
      expect(judge(`docs/a${terminator}b.md`)).toBe("outside_writes");
      // A `*` still stops at a folder: the terminator is no separator.
      expect(judge(`notes/a${terminator}/b.md`)).toBe("outside_writes");
    }
  });

  it("allows nothing with empty writes and calls paths above the root outside_root", () => {
    const judge = compileBoundary({ writes: [], protectedFiles: [] });
    expect(judge("a.txt")).toBe("outside_writes");
    expect(compileBoundary({ writes: ["**"], protectedFiles: [] })("../x")).toBe("outside_root");
    expect(compileBoundary({ writes: ["**"], protectedFiles: [" ", ""] })("x")).toBeNull();
  });

  it("reads a trailing slash as the folder and everything under it, in writes and protected files", () => {
    const judge = compileBoundary({
      writes: ["specs/", "./docs/", "**/fixtures/"],
      protectedFiles: ["specs/locked/", "adws/adw_modules/"],
    });
    expect(judge("specs/a.md")).toBeNull();
    expect(judge("specs/deep/er/b.md")).toBeNull();
    expect(judge("specs/.hidden")).toBeNull();
    expect(judge("docs/guide.md")).toBeNull();
    expect(judge("test/unit/fixtures/x.json")).toBeNull();
    expect(judge("specsheet.md")).toBe("outside_writes");
    // The folder itself is part of "the folder and everything under it" (picomatch's specs/** too).
    expect(judge("specs")).toBeNull();
    expect(judge("specs/locked/c.md")).toBe("protected");
    expect(judge("adws/adw_modules/helper.ts")).toBe("protected");
    expect(compileBoundary({ writes: ["./"], protectedFiles: [] })("any/where.txt")).toBeNull();
  });

  it("protects the repo's workflows and their modules with the default globs, even from writes naming them", () => {
    const judge = compileBoundary({
      writes: ["adws/**", "src/**"],
      protectedFiles: [".env", ...REPO_WORKFLOW_GLOBS, "adws/adw_data/prompt_engineering/**"],
    });
    for (const file of [
      "adws/adw_x.ts",
      "adws/adw_plan.mts",
      "adws/adw_js_flow.js",
      "adws/adw_m.mjs",
      "adws/adw_modules/helper.ts",
      "adws/adw_modules/deep/util.json",
    ]) {
      expect(judge(file), file).toBe("protected");
    }
    expect(judge("adws/notes.md")).toBeNull();
    expect(judge("adws/adw_data/sessions/a/x.json")).toBeNull();
    expect(judge("adws/sub/adw_x.ts")).toBeNull();
    expect(judge("src/adw_x.ts")).toBeNull();
    expect(
      compileBoundary({ writes: ["adws/adw_modules/"], protectedFiles: [] })("adws/adw_modules/h.ts"),
    ).toBeNull();
  });

  it("judges a rename by its worse side", () => {
    expect(worseRule(null, null)).toBeNull();
    expect(worseRule("outside_writes", null)).toBe("outside_writes");
    expect(worseRule(null, "protected")).toBe("protected");
    expect(worseRule("outside_writes", "protected")).toBe("protected");
  });
});

describe("tool call paths", () => {
  it("finds the path arguments of every runtime's file tools", () => {
    expect(toolCallPaths({ path: "a.txt" })).toEqual(["a.txt"]);
    expect(toolCallPaths({ file_path: "/abs/b.txt", content: "x" })).toEqual(["/abs/b.txt"]);
    expect(toolCallPaths({ filePath: "c.txt" })).toEqual(["c.txt"]);
    expect(toolCallPaths({ notebook_path: "n.ipynb" })).toEqual(["n.ipynb"]);
    expect(toolCallPaths({ from: "a", to: "b" })).toEqual(["a", "b"]);
    expect(
      toolCallPaths({ path: "x, y", changes: [{ path: "/r/x", kind: "add" }, { path: "/r/y" }] }),
    ).toEqual(["x, y", "/r/x", "/r/y"]);
    expect(toolCallPaths({ paths: ["p", 3, ""] })).toEqual(["p"]);
    expect(toolCallPaths({ command: "rm -rf /" })).toEqual([]);
    expect(toolCallPaths({ command: "cp", timeout: 5, cwd: "/", destination: " d " })).toEqual(["d"]);
    expect(toolCallPaths({ content: "x", new_path: "n", old_path: "o" })).toEqual(["o", "n"]);
    expect(toolCallPaths("just text")).toEqual([]);
    expect(toolCallPaths(null)).toEqual([]);
  });

  it("resolves them against the run root, with ~ as the home folder", () => {
    expect(resolveToolPath("../x.txt", "/work/repo")).toBe("/work/x.txt");
    expect(resolveToolPath("/etc/hosts", "/work/repo")).toBe("/etc/hosts");
    expect(resolveToolPath("~/notes.md", "/work/repo")).toBe(path.join(os.homedir(), "notes.md"));
    expect(isWithin("/work/repo/a", "/work/repo")).toBe(true);
    expect(isWithin("/work/repo", "/work/repo")).toBe(true);
    expect(isWithin("/work/repo2/a", "/work/repo")).toBe(false);
  });
});

describe("breach wording", () => {
  it("names each path, its change and rule, and whether it came back", () => {
    const breaches = [
      { path: ".env", change: "modified" as const, rule: "protected" as const, restored: true },
      {
        path: "b.md",
        change: "renamed" as const,
        previousPath: "a.md",
        rule: "outside_writes" as const,
        restored: false,
        note: "disk full",
      },
    ];
    expect(breachLabel(breaches[1] as (typeof breaches)[1])).toBe("b.md (renamed from a.md, outside_writes)");
    expect(breachReason("builder", breaches)).toBe(
      "builder wrote outside its boundary: .env (modified, protected) restored; b.md (renamed from a.md, outside_writes) NOT restored: disk full",
    );
  });
});
