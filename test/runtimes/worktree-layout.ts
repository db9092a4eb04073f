import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The folders of a worktree run, as sssf lays them out by default: the checkout (a git repo with one
 * commit), its data dir (ignored by git), the run's git worktree `<data>/.worktrees/<adw_id>` where
 * the agent's CLI starts, and the session's `context_handoff/` under `<data>/sessions/<adw_id>/`,
 * which is outside the worktree.
 */
export interface WorktreeLayout {
  checkout: string;
  /** The run's git worktree: the send's `cwd`. */
  worktree: string;
  /** The session's handoff folder: the send's `contextHandoffDir`. */
  contextHandoff: string;
  /** A folder in the checkout, outside both the worktree and the handoff folder. */
  outside: string;
}

const GIT_IDENTITY = [
  "-c",
  "user.name=sssf test",
  "-c",
  "user.email=sssf@example.test",
  "-c",
  "commit.gpgsign=false",
];

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", [...GIT_IDENTITY, ...args], { cwd, stdio: "pipe" });
}

/** The `git status --porcelain` of `dir`: empty when nothing changed there. */
export function gitStatus(dir: string): string {
  return execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" });
}

/**
 * Makes `checkout` a git repo with one commit (a `.gitignore` for the data dir, as `sssf init` writes
 * it), adds the worktree of run `adwId` on its branch `sssf/<adwId>`, and creates the handoff and the
 * outside folders. Throws when git fails.
 */
export function createWorktreeLayout(checkout: string, adwId = "a1b2c3d4"): WorktreeLayout {
  const data = path.join(checkout, "adws/adw_data");
  writeFileSync(path.join(checkout, ".gitignore"), "adws/adw_data/\n");
  git(checkout, "init", "-q", "-b", "main");
  git(checkout, "add", "-A");
  git(checkout, "commit", "-q", "-m", "initial");
  const worktree = path.join(data, ".worktrees", adwId);
  git(checkout, "worktree", "add", "-q", "-b", `sssf/${adwId}`, worktree);
  const contextHandoff = path.join(data, "sessions", adwId, "context_handoff");
  const outside = path.join(checkout, "outside-the-worktree");
  for (const dir of [contextHandoff, outside]) mkdirSync(dir, { recursive: true });
  return { checkout, worktree, contextHandoff, outside };
}
