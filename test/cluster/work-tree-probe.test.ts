import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type WorkTreeProbe,
  type WorkTreeProbeKind,
  workTreeProbe,
} from "../../src/cluster/work-tree-probe.js";
import { git } from "../worktree/worktree-world.js";

// The worker's two probes of a run's worktree (docs/cluster.md, "Costs"), through the same sequence of
// edits an agent makes: each read must be what git says the worktree holds. `plain` is the reference,
// `status` the fast path the workers use.
let dir: string;
let work: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sssf-probe-"));
  work = path.join(dir, "work");
  mkdirSync(work);
  git(work, ["init", "-q", "-b", "main"]);
  write(".gitignore", "ignored/\n");
  write("kept.txt", "kept\n");
  write("gone.txt", "gone\n");
  git(work, ["add", "-A"]);
  git(work, ["commit", "-q", "-m", "initial"]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
  writeFileSync(path.join(work, file), text);
}

/** Every file of `tree` with its content. */
function files(tree: string): Record<string, string> {
  const names = git(work, ["ls-tree", "-r", "--name-only", tree]).trim().split("\n");
  return Object.fromEntries(names.map((name) => [name, git(work, ["show", `${tree}:${name}`])]));
}

/** Reads the probe and checks it against git: HEAD, HEAD's tree, and the work's files. */
async function expectWork(probe: WorkTreeProbe, expected: Record<string, string>) {
  const state = await probe.read();
  expect(state.head).toBe(git(work, ["rev-parse", "HEAD"]).trim());
  expect(state.headTree).toBe(git(work, ["rev-parse", "HEAD^{tree}"]).trim());
  expect(files(state.tree)).toEqual(expected);
  return state;
}

describe.each<WorkTreeProbeKind>(["plain", "status"])("the %s probe of a run's worktree", (kind) => {
  it("follows every change an agent makes, and only those", async () => {
    const index = path.join(dir, "run.wip-index");
    const probe = workTreeProbe(kind, work, index);
    const base = { ".gitignore": "ignored/\n", "kept.txt": "kept\n", "gone.txt": "gone\n" };
    const first = await expectWork(probe, base);
    expect(first.tree).toBe(first.headTree);
    // Nothing changed: the same tree.
    expect(await probe.read()).toEqual(first);

    write("src/new.js", "new\n");
    const added = await expectWork(probe, { ...base, "src/new.js": "new\n" });
    expect(added.tree).not.toBe(added.headTree);
    expect(await probe.read()).toEqual(added);

    // Rewritten at once, with the same size: a racily clean file git must read again.
    write("kept.txt", "KEPT\n");
    await expectWork(probe, { ...base, "kept.txt": "KEPT\n", "src/new.js": "new\n" });
    write("kept.txt", "kEpT\n");
    await expectWork(probe, { ...base, "kept.txt": "kEpT\n", "src/new.js": "new\n" });

    unlinkSync(path.join(work, "gone.txt"));
    const { "gone.txt": _gone, ...left } = base;
    const now = { ...left, "kept.txt": "kEpT\n", "src/new.js": "new\n" };
    const deleted = await expectWork(probe, now);
    // What .gitignore keeps out is never part of the work.
    write("ignored/cache.bin", "x\n");
    expect(await expectWork(probe, now)).toEqual(deleted);

    // The agent commits with the worktree's own index: HEAD moves, the run's index follows it.
    git(work, ["add", "-A"]);
    git(work, ["commit", "-q", "-m", "agent's commit"]);
    const committed = await expectWork(probe, now);
    expect(committed.head).not.toBe(deleted.head);
    expect(committed.tree).toBe(committed.headTree);
    expect(committed.tree).toBe(deleted.tree);
    // The agent moves HEAD back: the work is what the worktree holds, whatever HEAD says.
    git(work, ["reset", "-q", "--hard", "HEAD~1"]);
    expect((await expectWork(probe, base)).head).toBe(first.head);

    // The run's index file lost (a worker restarted on the same checkout): read afresh.
    write("again.txt", "again\n");
    rmSync(index);
    await expectWork(probe, { ...base, "again.txt": "again\n" });
  });
});
