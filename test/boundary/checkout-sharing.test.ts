import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WriteBoundary } from "../../src/boundary/write-boundary.js";
import { CHECKOUT_STORE_UP_TO_BYTES, KEPT_FILES_NAME } from "../../src/boundary/write-boundary-checkout.js";
import type { ToolCall } from "../../src/runtimes/runtime.js";
import { withCheckoutWrite } from "../../src/workspace/checkout-lock.js";
import { gate, sleep } from "../helpers/wait.js";
import { git } from "./boundary-fixture.js";

/** git with extra environment (a scratch index) and a fixed identity. */
function gitWith(cwd: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "operator",
      GIT_AUTHOR_EMAIL: "operator@sssf.invalid",
      GIT_COMMITTER_NAME: "operator",
      GIT_COMMITTER_EMAIL: "operator@sssf.invalid",
      ...env,
    },
  });
}

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

  it("moves a file too big to copy aside before it puts the path back", async () => {
    const checkpoint = await boundary().checkpoint();
    const startedAt = new Date();
    const big = Buffer.alloc(CHECKOUT_STORE_UP_TO_BYTES + 1, 0x61);
    writeFileSync(path.join(checkout, "export.bin"), big);
    writeFileSync(path.join(checkout, "README.md"), big);
    const breaches = await checkpoint.settle([shell(startedAt)]);
    const kept = path.join(realpathSync(checkout), ".git", KEPT_FILES_NAME);
    expect(breaches).toEqual(
      ["README.md", "export.bin"].map((file) => ({
        path: `../../../../${file}`,
        change: file === "README.md" ? "modified" : "added",
        rule: "outside_root",
        restored: true,
        keptPath: expect.stringMatching(new RegExp(`^${kept}/.*-${file.replace(".", "\\.")}$`)),
      })),
    );
    expect(readFileSync(path.join(checkout, "README.md"), "utf8")).toBe("# checkout\n");
    expect(existsSync(path.join(checkout, "export.bin"))).toBe(false);
    for (const breach of breaches) expect(readFileSync(breach.keptPath ?? "none").equals(big)).toBe(true);
    expect(git(checkout, "status", "--porcelain")).toBe("");
  });

  it("keeps what an ignored protected file held before it puts it back", async () => {
    writeFileSync(path.join(checkout, ".gitignore"), "adws/adw_data/\n.env\n");
    git(checkout, "commit", "-q", "-am", "ignore .env");
    writeFileSync(path.join(checkout, ".env"), "TOKEN=before\n");
    const guarded = new WriteBoundary({
      root: worktree,
      writes: ["**"],
      protectedFiles: [".env"],
      exclude: () => [],
      ownPaths: [],
      checkout,
      checkoutExclude: () => ["adws/adw_data"],
    });
    const checkpoint = await guarded.checkpoint();
    const startedAt = new Date();
    writeFileSync(path.join(checkout, ".env"), "TOKEN=saved by the operator\n");
    const [breach, ...others] = await checkpoint.settle([shell(startedAt)]);
    expect(others).toEqual([]);
    expect(breach).toMatchObject({ path: "../../../../.env", change: "modified", restored: true });
    expect(readFileSync(path.join(checkout, ".env"), "utf8")).toBe("TOKEN=before\n");
    expect(git(checkout, "cat-file", "blob", breach?.keptBlob ?? "none")).toBe(
      "TOKEN=saved by the operator\n",
    );
  });

  it("waits for an sssf merge into the checkout: its files, written before HEAD moves, are not the agent's", async () => {
    const checkpoint = await boundary().checkpoint();
    const startedAt = new Date();
    const merged = gate();
    const merging = withCheckoutWrite(path.join(checkout, ".git"), async () => {
      // A merge writes the work tree first and moves HEAD last.
      writeFileSync(path.join(checkout, "feature.js"), "merged\n");
      writeFileSync(path.join(checkout, "README.md"), "# checkout, merged\n");
      await merged.opened;
      git(checkout, "add", "-A");
      git(checkout, "commit", "-q", "-m", "merged by another run");
    });
    await sleep(30);
    const settling = checkpoint.settle([shell(startedAt)]);
    await sleep(150);
    merged.open();
    await merging;
    expect(await settling).toEqual([]);
    expect(readFileSync(path.join(checkout, "feature.js"), "utf8")).toBe("merged\n");
    expect(git(checkout, "status", "--porcelain")).toBe("");
  });

  it("waits for the operator's git command to release the index before looking", async () => {
    const checkpoint = await boundary().checkpoint();
    const startedAt = new Date();
    const gitDir = path.join(checkout, ".git");
    // The operator's pull, from the outside: index.lock held, files written, HEAD and index moved last.
    writeFileSync(path.join(gitDir, "index.lock"), "");
    writeFileSync(path.join(checkout, "feature.js"), "pulled\n");
    const settling = checkpoint.settle([shell(startedAt)]);
    await sleep(150);
    const scratchIndex = path.join(dir, "next-index");
    const env = { GIT_INDEX_FILE: scratchIndex };
    gitWith(checkout, env, "read-tree", "HEAD");
    gitWith(checkout, env, "add", "feature.js");
    const tree = gitWith(checkout, env, "write-tree").trim();
    const commit = gitWith(checkout, env, "commit-tree", tree, "-p", "HEAD", "-m", "pulled").trim();
    gitWith(checkout, env, "update-ref", "HEAD", commit);
    renameSync(scratchIndex, path.join(gitDir, "index.lock"));
    renameSync(path.join(gitDir, "index.lock"), path.join(gitDir, "index"));
    expect(await settling).toEqual([]);
    expect(readFileSync(path.join(checkout, "feature.js"), "utf8")).toBe("pulled\n");
    expect(git(checkout, "status", "--porcelain")).toBe("");
  });

  it("puts back a shell write there made while the agent's tool call ran, keeping what it wrote", async () => {
    const checkpoint = await boundary().checkpoint();
    const startedAt = new Date();
    // The agent's shell, or the operator saving a file at that moment: the timing cannot tell.
    writeFileSync(path.join(checkout, "README.md"), "the agent's shell was here\n");
    mkdirSync(path.join(checkout, "notes"));
    writeFileSync(path.join(checkout, "notes/draft.md"), "an operator's draft\n");
    const breaches = await checkpoint.settle([shell(startedAt)]);
    expect(breaches).toEqual([
      {
        path: "../../../../README.md",
        change: "modified",
        rule: "outside_root",
        restored: true,
        keptBlob: expect.stringMatching(/^[0-9a-f]{40}$/),
      },
      {
        path: "../../../../notes/draft.md",
        change: "added",
        rule: "outside_root",
        restored: true,
        keptBlob: expect.stringMatching(/^[0-9a-f]{40}$/),
      },
    ]);
    expect(readFileSync(path.join(checkout, "README.md"), "utf8")).toBe("# checkout\n");
    expect(existsSync(path.join(checkout, "notes"))).toBe(false);
    const [readme, draft] = breaches.map((breach) =>
      git(checkout, "cat-file", "blob", breach.keptBlob ?? "none"),
    );
    expect(readme).toBe("the agent's shell was here\n");
    expect(draft).toBe("an operator's draft\n");
  });
});
