import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WriteBoundary } from "../../src/boundary/write-boundary.js";
import { assignBlame, ownChanges } from "../../src/boundary/write-boundary-attribution.js";
import { compileBoundary } from "../../src/boundary/write-boundary-rules.js";
import { BoundarySends } from "../../src/boundary/write-boundary-sends.js";
import type { ToolCall } from "../../src/runtimes/runtime.js";

let parent: string;
let root: string;
let sends: BoundarySends;
beforeEach(() => {
  // A private parent folder, so the boundaries' listing of the root's parent is small and ours.
  parent = mkdtempSync(path.join(tmpdir(), "sssf-sends-"));
  root = path.join(parent, "repo");
  for (const [file, content] of Object.entries({
    "a/base.txt": "a\n",
    "b/base.txt": "b\n",
    "notes.txt": "n\n",
  }))
    put(file, content);
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: root,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  sends = new BoundarySends();
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

function put(file: string, content: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
}
const read = (file: string) =>
  existsSync(path.join(root, file)) ? readFileSync(path.join(root, file), "utf8") : null;
const call = (file: string): ToolCall => ({
  tool: "write",
  name: "write",
  args: { path: file },
  result: "",
  ok: true,
  startedAt: new Date(),
  endedAt: new Date(),
});

/** The boundary of `agent` over the test repo, registered with the shared `sends`. */
function boundary(agent: string, writes: string[], protectedFiles: string[] = []): WriteBoundary {
  return new WriteBoundary({ root, writes, protectedFiles, exclude: () => [], ownPaths: [], agent, sends });
}

describe("write boundaries of concurrent sends", () => {
  it("leaves a sibling's in-flight write alone, and its settle keeps it", async () => {
    const alpha = boundary("alpha", ["a/**"]);
    const beta = boundary("beta", ["b/**"]);
    const a = await alpha.checkpoint();
    const b = await beta.checkpoint();
    put("a/one.txt", "1\n");
    put("b/two.txt", "2\n");
    expect(await a.settle([call("a/one.txt")])).toEqual([]);
    expect(await b.settle([call("b/two.txt")])).toEqual([]);
    expect([read("a/one.txt"), read("b/two.txt")]).toEqual(["1\n", "2\n"]);
  });

  it("leaves what a sibling that settled first kept, but not once no send overlaps", async () => {
    const alpha = boundary("alpha", ["a/**"]);
    const beta = boundary("beta", ["b/**"]);
    const a = await alpha.checkpoint();
    const b = await beta.checkpoint();
    put("b/two.txt", "2\n");
    expect(await b.settle([])).toEqual([]);
    expect(await a.settle([])).toEqual([]);
    expect(read("b/two.txt")).toBe("2\n");
    // Alone, alpha is the only one who could have written b/three.txt.
    const again = await alpha.checkpoint();
    put("b/three.txt", "3\n");
    expect(await again.settle([])).toEqual([
      { path: "b/three.txt", change: "added", rule: "outside_writes", restored: true },
    ]);
    expect(read("b/three.txt")).toBeNull();
  });

  it("makes a path in a sibling's area the writer's own breach when its tool call named it", async () => {
    const alpha = boundary("alpha", ["a/**"]);
    const beta = boundary("beta", ["b/**"]);
    const a = await alpha.checkpoint();
    const b = await beta.checkpoint();
    put("b/intrusion.txt", "x\n");
    put("b/own.txt", "mine\n");
    expect(await a.settle([call("b/intrusion.txt")])).toEqual([
      { path: "b/intrusion.txt", change: "added", rule: "outside_writes", restored: true },
    ]);
    expect(await b.settle([call("b/own.txt")])).toEqual([]);
    expect([read("b/intrusion.txt"), read("b/own.txt")]).toEqual([null, "mine\n"]);
  });

  it("restores an unnamed write outside every area once, puts it on both, and the later settle does not undo the fix", async () => {
    const alpha = boundary("alpha", ["a/**"]);
    const beta = boundary("beta", ["b/**"]);
    const a = await alpha.checkpoint();
    put("notes.txt", "bad\n");
    // beta's checkpoint sees the bad content as how things were.
    const b = await beta.checkpoint();
    const note = "changed while alpha, beta were sending, and no tool call named it: reported on each";
    const breach = { path: "notes.txt", change: "modified", rule: "outside_writes", restored: true, note };
    expect(await a.settle([])).toEqual([breach]);
    expect(read("notes.txt")).toBe("n\n");
    expect(await b.settle([])).toEqual([breach]);
    expect(read("notes.txt")).toBe("n\n");
  });

  it("puts a write outside every area only on the in-flight sibling whose tool call named it", async () => {
    const alpha = boundary("alpha", ["a/**"]);
    const beta = boundary("beta", ["b/**"]);
    const a = await alpha.checkpoint();
    const b = await beta.checkpoint();
    put("notes.txt", "beta's doing\n");
    b.noteToolCall(call(path.join(root, "notes.txt")));
    expect(await a.settle([])).toEqual([]);
    expect(read("notes.txt")).toBe("n\n");
    expect(await b.settle([])).toEqual([
      {
        path: "notes.txt",
        change: "modified",
        rule: "outside_writes",
        restored: true,
        note: "restored when alpha's send settled",
      },
    ]);
  });

  it("never counts a protected file as a sibling's, even one whose writes cover everything", async () => {
    const alpha = boundary("alpha", ["a/**"], ["secret.txt"]);
    const beta = boundary("beta", ["**"], ["secret.txt"]);
    put("secret.txt", "s\n");
    execFileSync("git", ["add", "secret.txt"], { cwd: root });
    const a = await alpha.checkpoint();
    const b = await beta.checkpoint();
    put("secret.txt", "leaked\n");
    put("notes.txt", "beta may\n");
    const found = await a.settle([]);
    expect(found.map((f) => [f.path, f.rule, f.restored])).toEqual([["secret.txt", "protected", true]]);
    expect(await b.settle([])).toEqual(found);
    expect([read("secret.txt"), read("notes.txt")]).toEqual(["s\n", "beta may\n"]);
  });
});

describe("assignBlame and ownChanges", () => {
  const judge = compileBoundary({ writes: ["a/**"], protectedFiles: [] });
  const breach = { path: "x.txt", change: "added" as const, rule: "outside_writes" as const, restored: true };

  it("keeps every breach its own without siblings in flight, and paths outside the root always", () => {
    const registry = new BoundarySends();
    const mine = registry.open("alpha", judge);
    const other = registry.open("beta", judge);
    expect(assignBlame(mine, [], [breach]).own).toEqual([breach]);
    const outside = { ...breach, path: "../x.txt", rule: "outside_root" as const };
    const blame = assignBlame(mine, [other], [outside]);
    expect([blame.own, blame.others.size]).toEqual([[outside], 0]);
  });

  it("lets a diff gate see changes inside the boundary or named, on either side of a rename", () => {
    const changes = [
      { path: "a/one.txt", change: "added" as const },
      { path: "b/two.txt", change: "added" as const },
      { path: "c/named.txt", change: "modified" as const },
      { path: "b/moved.txt", change: "renamed" as const, previousPath: "a/moved.txt" },
    ];
    expect(ownChanges(changes, judge, new Set(["c/named.txt"])).map((c) => c.path)).toEqual([
      "a/one.txt",
      "c/named.txt",
      "b/moved.txt",
    ]);
  });
});
