/**
 * Checkpoints of a run's worktree (docs/resume.md, "The checkpoint before a phase"): the working tree
 * as it is, tracked and untracked files alike, written as a commit whose first parent is HEAD, so a
 * resume can put the worktree back to the world a phase that did not complete first saw. Ignored files
 * and sssf's own paths are never part of one: restoring leaves them as they are.
 *
 * Everything goes through a private index (a copy of the worktree's, for its stat cache): the
 * worktree's own index, HEAD and branch are read, never written, while a checkpoint is taken.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { normalizeExcludes } from "./exclude-prefixes.js";
import { runGit } from "./run-git.js";

/** A checkpoint as the journal records it (wire names: snake_case). */
export interface WorkCheckpoint {
  /** The checkpoint commit: its tree is the working tree, its first parent `head`. */
  commit: string;
  /** HEAD when it was taken. */
  head: string;
  /** The branch HEAD named then (a full ref), or null when HEAD was detached. */
  branch: string | null;
}

/** What putting a worktree back to a checkpoint did. */
export interface RestoredCheckpoint {
  /** Paths put back (created, rewritten or removed), relative to the worktree's top, sorted. */
  paths: string[];
  /** HEAD moved back to the checkpoint's (the interrupted attempt had committed). */
  headMoved: boolean;
  /** What the worktree held before, kept as a commit (null when it already was the checkpoint). */
  kept: string | null;
}

/** Who checkpoint commits are by: never the operator, whatever git is configured with. */
const CHECKPOINT_IDENTITY = {
  GIT_AUTHOR_NAME: "sssf",
  GIT_AUTHOR_EMAIL: "sssf@localhost",
  GIT_COMMITTER_NAME: "sssf",
  GIT_COMMITTER_EMAIL: "sssf@localhost",
};

/** `refs/sssf/checkpoints/<adw_id>`: the newest checkpoint of a run, older ones reachable from it. */
export function checkpointRef(adwId: string): string {
  return `refs/sssf/checkpoints/${adwId}`;
}

/** HEAD, the branch it names and the worktree's index file, in one git process. */
async function headFacts(top: string): Promise<{ index: string; head: string; branch: string | null }> {
  const [index = "", head = "", symbolic = ""] = (
    await runGit(top, [
      "rev-parse",
      "--path-format=absolute",
      "--git-path",
      "index",
      "HEAD",
      "--symbolic-full-name",
      "HEAD",
    ])
  )
    .trim()
    .split("\n");
  return { index, head, branch: symbolic.startsWith("refs/") ? symbolic : null };
}

/** A scratch index seeded from the worktree's (stat cache included), and its removal. */
function scratchIndex(realIndex: string): { env: NodeJS.ProcessEnv; dispose(): void; seeded: boolean } {
  const dir = mkdtempSync(path.join(tmpdir(), "sssf-checkpoint-"));
  const file = path.join(dir, "index");
  let seeded = false;
  if (existsSync(realIndex)) {
    try {
      copyFileSync(realIndex, file);
      seeded = true;
    } catch {
      // Read from HEAD instead.
    }
  }
  return {
    env: { GIT_INDEX_FILE: file },
    seeded,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Pathspecs of every non-ignored path of the worktree but sssf's own (`exclude`, relative to `top` or absolute). */
function pathspecs(top: string, exclude: readonly string[]): string[] {
  return [".", ...normalizeExcludes(top, exclude).map((prefix) => `:(top,exclude,literal)${prefix}`)];
}

/** The working tree as a tree object, written through the scratch index. */
async function workingTree(
  top: string,
  scratch: { env: NodeJS.ProcessEnv; seeded: boolean },
  exclude: readonly string[],
): Promise<string> {
  if (!scratch.seeded) await runGit(top, ["read-tree", "HEAD"], { env: scratch.env });
  await runGit(top, ["add", "--all", "--", ...pathspecs(top, exclude)], { env: scratch.env });
  return (await runGit(top, ["write-tree"], { env: scratch.env })).trim();
}

/** The newest checkpoint commit under `ref`, or null. */
async function refTip(top: string, ref: string): Promise<string | null> {
  const tip = (await runGit(top, ["for-each-ref", "--format=%(objectname)", ref])).trim();
  return tip === "" ? null : tip;
}

/** A commit of `tree` on `parents`, by sssf. */
async function commitTree(
  top: string,
  tree: string,
  parents: readonly string[],
  message: string,
): Promise<string> {
  const args = ["commit-tree", tree, ...parents.flatMap((parent) => ["-p", parent]), "-F", "-"];
  return (await runGit(top, args, { env: CHECKPOINT_IDENTITY, input: message })).trim();
}

/**
 * Takes a checkpoint of the worktree whose top level is `top`: every tracked and untracked file that
 * is not ignored and not under `exclude`. The commit's first parent is HEAD, its second the previous
 * checkpoint under `ref` (so every checkpoint of the run stays reachable); `ref` moves to it.
 * Rejects with a GitError when git does.
 */
export async function takeWorkCheckpoint(
  top: string,
  options: { ref: string; exclude: readonly string[]; message: string },
): Promise<WorkCheckpoint> {
  const [facts, previous] = await Promise.all([headFacts(top), refTip(top, options.ref)]);
  const scratch = scratchIndex(facts.index);
  try {
    const tree = await workingTree(top, scratch, options.exclude);
    const parents = previous === null ? [facts.head] : [facts.head, previous];
    const commit = await commitTree(top, tree, parents, options.message);
    await runGit(top, ["update-ref", options.ref, commit]);
    return { commit, head: facts.head, branch: facts.branch };
  } finally {
    scratch.dispose();
  }
}

/** True when `commit` names a commit this repository has. */
export async function hasCommit(top: string, commit: string): Promise<boolean> {
  try {
    await runGit(top, ["cat-file", "-e", `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Puts the worktree whose top level is `top` back to `checkpoint`: every non-ignored path outside
 * `exclude` as the checkpoint holds it (files the interrupted attempt created are removed, those it
 * changed or deleted come back), HEAD (and the branch it names) back at the checkpoint's, and the
 * worktree's index reset to HEAD. What the worktree held before is kept first as a commit under `ref`,
 * so nothing is lost. Ignored files are left as they are. Rejects with a GitError when git does (a
 * checkpoint path now held by an ignored file, for one).
 */
export async function restoreWorkCheckpoint(
  top: string,
  checkpoint: WorkCheckpoint,
  options: { ref: string; exclude: readonly string[]; message: string },
): Promise<RestoredCheckpoint> {
  const [facts, previous] = await Promise.all([headFacts(top), refTip(top, options.ref)]);
  const scratch = scratchIndex(facts.index);
  try {
    const now = await workingTree(top, scratch, options.exclude);
    const target = (await runGit(top, ["rev-parse", `${checkpoint.commit}^{tree}`])).trim();
    const headMoved = facts.head !== checkpoint.head || facts.branch !== checkpoint.branch;
    if (now === target && !headMoved) return { paths: [], headMoved: false, kept: null };
    const paths = (await runGit(top, ["diff-tree", "-r", "-z", "--name-only", "--no-renames", now, target]))
      .split("\0")
      .filter((entry) => entry !== "")
      .sort();
    const parents = previous === null ? [facts.head] : [facts.head, previous];
    const kept = await commitTree(top, now, parents, options.message);
    await runGit(top, ["update-ref", options.ref, kept]);
    // The scratch index is the working tree exactly: a two-tree merge moves it, and the files, to the target.
    if (now !== target) await runGit(top, ["read-tree", "-m", "-u", now, target], { env: scratch.env });
    if (headMoved) {
      const note = ["-m", "sssf resume: back to the checkpoint before the interrupted phase"];
      if (checkpoint.branch === null)
        await runGit(top, ["update-ref", ...note, "--no-deref", "HEAD", checkpoint.head]);
      else {
        await runGit(top, ["update-ref", ...note, checkpoint.branch, checkpoint.head]);
        if (facts.branch !== checkpoint.branch)
          await runGit(top, ["symbolic-ref", "HEAD", checkpoint.branch]);
      }
    }
    await runGit(top, ["reset", "--quiet"]);
    return { paths, headMoved, kept };
  } finally {
    scratch.dispose();
  }
}

/** Deletes a run's checkpoints (`ref`), once nothing can resume it there. Never rejects. */
export async function dropWorkCheckpoints(top: string, ref: string): Promise<void> {
  await runGit(top, ["update-ref", "-d", ref]).catch(() => undefined);
}
