import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WriteBoundary } from "../../src/boundary/write-boundary.js";
import type { ToolCall } from "../../src/runtimes/runtime.js";
import { git } from "./boundary-fixture.js";

let dir: string;
let checkout: string;
let worktree: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-sharing-"));
  checkout = path.join(dir, "checkout");
  mkdirSync(checkout);
  writeFileSync(path.join(checkout, "README.md"), "# checkout\n");
  writeFileSync(path.join(checkout, ".gitignore"), "adws/adw_data/\n");
  git(checkout, "init", "-q", "-b", "main");
  git(checkout, "add", "-A");
  git(checkout, "commit", "-q", "-m", "start");
  worktree = path.join(checkout, "adws/adw_data/.worktrees/run");
  git(checkout, "worktree", "add", "-q", "-b", "sssf/run", worktree);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A shell tool call that ran from `startedAt` until now. */
const shell = (startedAt: Date): ToolCall => ({
  tool: "bash",
  name: "bash",
  args: { command: "…" },
  result: "",
  ok: true,
  startedAt,
  endedAt: new Date(),
});

const boundary = () =>
  new WriteBoundary({
    root: worktree,
    writes: ["**"],
    protectedFiles: [],
    exclude: () => [],
    ownPaths: [],
    checkout,
    checkoutExclude: () => ["adws/adw_data"],
  });

describe("the operator's checkout, shared with other writers", () => {
  it("leaves a commit or merge there alone: paths matching the moved HEAD are git's doing", async () => {
    const checkpoint = await boundary().checkpoint();
    const startedAt = new Date();
    // Another run's --merge (or the operator's pull) while the agent's tool call runs.
    writeFileSync(path.join(checkout, "feature.js"), "merged\n");
    git(checkout, "add", "feature.js");
    git(checkout, "commit", "-q", "-m", "merged by someone else");
    expect(await checkpoint.settle([shell(startedAt)])).toEqual([]);
    expect(readFileSync(path.join(checkout, "feature.js"), "utf8")).toBe("merged\n");
    expect(git(checkout, "status", "--porcelain")).toBe("");
  });

  it("puts back a shell write there made while the agent's tool call ran", async () => {
    const checkpoint = await boundary().checkpoint();
    const startedAt = new Date();
    writeFileSync(path.join(checkout, "README.md"), "the agent's shell was here\n");
    expect(await checkpoint.settle([shell(startedAt)])).toEqual([
      { path: "../../../../README.md", change: "modified", rule: "outside_root", restored: true },
    ]);
    expect(readFileSync(path.join(checkout, "README.md"), "utf8")).toBe("# checkout\n");
  });
});
