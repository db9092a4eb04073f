import { randomBytes } from "node:crypto";
import fs, {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { boundaryExcludes, WriteBoundary } from "../../src/boundary/write-boundary.js";
import type { SssfConfig } from "../../src/config/config-types.js";
import type { ToolCall } from "../../src/runtimes/runtime.js";
import { git } from "./boundary-fixture.js";

let parent: string;
let root: string;
beforeEach(() => {
  // A private parent folder, so the shallow listing of the root's parent is small and ours.
  parent = mkdtempSync(path.join(tmpdir(), "sssf-boundary-"));
  root = path.join(parent, "repo");
  mkdirSync(root);
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

const put = (file: string, content: string | Buffer) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
};
const read = (file: string) => readFileSync(path.join(root, file));
const call = (args: unknown): ToolCall => ({
  tool: "write",
  name: "write",
  args,
  result: "",
  ok: true,
  startedAt: new Date(),
  endedAt: new Date(),
});

function boundary(writes: string[], protectedFiles: string[] = []): WriteBoundary {
  return new WriteBoundary({
    root,
    writes,
    protectedFiles,
    exclude: () => ["sessions"],
    ownPaths: [path.join(root, "sessions")],
  });
}

function commitAll(): void {
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "start");
}

describe("WriteBoundary in a git work tree", () => {
  it("restores a HEAD file's executable bit and a symlink, and removes created folders once empty", async () => {
    put("bin/run.sh", "#!/bin/sh\necho hi\n");
    chmodSync(path.join(root, "bin/run.sh"), 0o755);
    symlinkSync("bin/run.sh", path.join(root, "run"));
    put("lib/keep.txt", "kept\n");
    commitAll();
    const guard = boundary(["src/**"]);
    const checkpoint = await guard.checkpoint();
    writeFileSync(path.join(root, "bin/run.sh"), "rm -rf /\n");
    chmodSync(path.join(root, "bin/run.sh"), 0o644);
    unlinkSync(path.join(root, "run"));
    writeFileSync(path.join(root, "run"), "not a link\n");
    put("new/deep/er/file.txt", "x");
    put("lib/extra.txt", "y");
    put("sessions/own.log", "sssf's own");
    const breaches = await checkpoint.settle([]);

    expect(breaches.map((b) => `${b.path} ${b.change} ${b.restored}`)).toEqual([
      "bin/run.sh modified true",
      "lib/extra.txt added true",
      "new/deep/er/file.txt added true",
      "run modified true",
    ]);
    expect(read("bin/run.sh").toString()).toBe("#!/bin/sh\necho hi\n");
    expect(lstatSync(path.join(root, "bin/run.sh")).mode & 0o777).toBe(0o755);
    expect(lstatSync(path.join(root, "run")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(root, "run"))).toBe("bin/run.sh");
    expect(existsSync(path.join(root, "new"))).toBe(false);
    expect(existsSync(path.join(root, "lib/keep.txt"))).toBe(true);
    expect(existsSync(path.join(root, "sessions/own.log"))).toBe(true);
    expect(git(root, "status", "--porcelain", "--", ".", ":!sessions")).toBe("");
  });

  it("restores dirty content (not HEAD's) over several sends, and leaves in-boundary changes", async () => {
    put("config.json", '{"a":1}\n');
    commitAll();
    const dirty = randomBytes(4096);
    put("config.json", dirty);
    const guard = boundary(["src/**"], ["config.json"]);
    for (let send = 0; send < 3; send++) {
      const checkpoint = await guard.checkpoint();
      put("config.json", `overwritten ${send}`);
      put(`src/file${send}.ts`, "ok");
      const breaches = await checkpoint.settle([]);
      expect(breaches).toEqual([
        { path: "config.json", change: "modified", rule: "protected", restored: true },
      ]);
      expect(read("config.json").equals(dirty)).toBe(true);
    }
    expect(existsSync(path.join(root, "src/file2.ts"))).toBe(true);
  });

  it("a boxed send: nothing outside the repository is listed or judged, the root still is", async () => {
    put("a.txt", "a");
    commitAll();
    const sibling = path.join(parent, "sibling.txt");
    writeFileSync(sibling, "sibling\n");
    symlinkSync(sibling, path.join(root, "out.txt"));
    const readdir = vi.spyOn(fs, "readdirSync");
    try {
      const checkpoint = await boundary(["src/**"]).checkpoint(true);
      // The parent folder is never read (no listing), nor any link target elsewhere.
      expect(readdir.mock.calls.filter(([dir]) => !String(dir).startsWith(root))).toEqual([]);
      writeFileSync(sibling, "changed outside: the box would have refused it\n");
      put("a.txt", "changed");
      const breaches = await checkpoint.settle([call({ path: "../sibling.txt" })]);
      expect(breaches).toEqual([
        { path: "a.txt", change: "modified", rule: "outside_writes", restored: true },
      ]);
    } finally {
      readdir.mockRestore();
    }
  });

  it("outside the root: only named paths count; a new folder next to the repo goes, elsewhere is reported", async () => {
    put("a.txt", "a");
    commitAll();
    const sibling = path.join(parent, "sibling.txt");
    const untouchedByTools = path.join(parent, "other-process.txt");
    const existingDir = path.join(parent, "existing");
    mkdirSync(existingDir);
    writeFileSync(sibling, "sibling\n");
    writeFileSync(untouchedByTools, "before\n");
    const guard = boundary(["**"]);
    const checkpoint = await guard.checkpoint();
    unlinkSync(sibling);
    writeFileSync(untouchedByTools, "another process wrote this\n");
    mkdirSync(path.join(parent, "made/by/agent"), { recursive: true });
    writeFileSync(path.join(parent, "made/by/agent/x.txt"), "x");
    writeFileSync(path.join(existingDir, "y.txt"), "y");
    const breaches = await checkpoint.settle([
      call({ path: "../sibling.txt" }),
      call({ file_path: path.join(parent, "made/by/agent/x.txt") }),
      call({ filePath: path.join(existingDir, "y.txt") }),
      call({ path: "../never-written.txt" }),
      call({ path: path.join(root, "sessions/handoff.md") }),
    ]);

    expect(breaches).toEqual([
      {
        path: path.join(existingDir, "y.txt"),
        change: "modified",
        rule: "outside_root",
        restored: false,
        note: expect.stringContaining("cannot be restored"),
      },
      { path: "../made/by/agent/x.txt", change: "added", rule: "outside_root", restored: true },
      {
        path: "../sibling.txt",
        change: "deleted",
        rule: "outside_root",
        restored: false,
        note: expect.stringContaining("keeps no copy"),
      },
    ]);
    // sssf keeps no copy of a file outside the repository (issue 34, item 2): a deleted one stays gone.
    expect(existsSync(sibling)).toBe(false);
    expect(existsSync(path.join(parent, "made"))).toBe(false);
    expect(readFileSync(untouchedByTools, "utf8")).toBe("another process wrote this\n");
    expect(readFileSync(path.join(existingDir, "y.txt"), "utf8")).toBe("y");
  });
});

describe("boundaryExcludes", () => {
  it("leaves out the sessions, the database, sssf's other data and linked dependencies, but not the prompts", () => {
    const dataDir = path.join(root, "adws/adw_data");
    mkdirSync(path.join(dataDir, "prompt_engineering"), { recursive: true });
    mkdirSync(path.join(dataDir, ".worktrees"), { recursive: true });
    mkdirSync(path.join(parent, "deps"));
    symlinkSync(path.join(parent, "deps"), path.join(root, "node_modules"));
    const config = {
      repoRoot: root,
      dataDir,
      sessionsDir: path.join(dataDir, "sessions"),
      dbPath: path.join(dataDir, "sssf.db"),
    } as SssfConfig;
    expect(boundaryExcludes(config).sort()).toEqual([
      "adws/adw_data/.worktrees",
      "adws/adw_data/sessions",
      "adws/adw_data/sssf.db",
      "adws/adw_data/sssf.db-journal",
      "adws/adw_data/sssf.db-shm",
      "adws/adw_data/sssf.db-wal",
      "node_modules",
    ]);
  });
});
