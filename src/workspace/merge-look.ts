/**
 * What `sssf merge <adw_id>` (and the UI's Merge) would land, read without touching the checkout or
 * any ref: the run's branch, the base branch it goes into, how far the base moved, whether the merge
 * would conflict (`git merge-tree --write-tree`), and the one line that refuses it, if any.
 */
import type { MergeStrategy } from "../config/config-types.js";
import { GitError } from "../errors/git-error.js";
import type { SessionRow } from "../trace/events.js";
import { inspectCheckout, resolveCommit, uncommittedPaths } from "./worktree.js";
import { gitOrThrow, gitOutcome } from "./worktree-git.js";

/** What `lookAtMerge` is asked about. */
export interface MergeLookRequest {
  /** The operator's checkout (any folder of its work tree). */
  checkout: string;
  session: SessionRow;
  strategy: MergeStrategy;
  /** `--into <branch>`: the base branch, over the recorded `--merge` target and HEAD's branch. */
  into?: string | undefined;
  /** The branch recorded when the run started (`--merge`'s, else its base branch), or null in older sessions. */
  recordedInto: string | null;
}

/** The look, wire-shaped (snake_case): printed by `--json` and served to the UI as it is. */
export interface MergeLook {
  adw_id: string;
  status: string;
  accepted: boolean;
  strategy: MergeStrategy;
  /** The run's branch, or null when it ran in place. */
  branch: string | null;
  branch_exists: boolean;
  /** The branch it would land in, or null when there is none (detached HEAD). */
  base: string | null;
  base_tip: string | null;
  branch_tip: string | null;
  /** Commits on the base that the run's branch lacks (0: a fast-forward). */
  behind: number;
  /** The run's commits that would land, oldest first. */
  commits: { sha: string; subject: string }[];
  /** Files the merge changes on the base. */
  files: string[];
  /** Files that would conflict with the current base (empty: it merges cleanly). */
  conflicts: string[];
  /** `fast-forward` or `merge-commit`, or null when refused. */
  method: "fast-forward" | "merge-commit" | null;
  /** One line saying why it cannot be merged; null when it can. */
  refusal: string | null;
  /** Internal: the merged tree of a merge commit (not for the wire). */
  tree?: string;
  /** The checkout's top level. */
  checkout: string | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const listed = (paths: readonly string[]) =>
  paths.length <= 5 ? paths.join(", ") : `${paths.slice(0, 5).join(", ")} and ${paths.length - 5} more`;

/** Lines of git's output, empty ones left out. */
const lines = (text: string) => text.split("\n").filter((line) => line !== "");

/**
 * `git merge-tree --write-tree` of `base` and `tip`: the merged tree, or the conflicting paths (git
 * exits 1 and lists them after the tree). Rejects with a GitError when git cannot tell.
 */
export async function mergeTree(
  dir: string,
  base: string,
  tip: string,
): Promise<{ tree: string; conflicts: string[] }> {
  const args = ["merge-tree", "--write-tree", "--name-only", "--no-messages", base, tip];
  try {
    const [tree = ""] = lines(await gitOrThrow(dir, args));
    return { tree, conflicts: [] };
  } catch (error) {
    if (!(error instanceof GitError) || error.gitExitCode !== 1) throw error;
    const stdout = (error.cause as { stdout?: Buffer } | undefined)?.stdout?.toString("utf8") ?? "";
    const [tree = "", ...paths] = lines(stdout);
    return { tree, conflicts: [...new Set(paths)] };
  }
}

/** Looks at what merging the session's branch would do; refusals are in `refusal`, never thrown (but git's failures). */
export async function lookAtMerge(request: MergeLookRequest): Promise<MergeLook> {
  const { session, strategy } = request;
  const look: MergeLook = {
    adw_id: session.adw_id,
    status: session.status,
    accepted: session.accepted === 1,
    strategy,
    branch: session.branch,
    branch_exists: false,
    base: null,
    base_tip: null,
    branch_tip: null,
    behind: 0,
    commits: [],
    files: [],
    conflicts: [],
    method: null,
    refusal: null,
    checkout: null,
  };
  const refuse = (line: string): MergeLook => ({ ...look, method: null, refusal: line });
  const id = session.adw_id;
  const git = await inspectCheckout(request.checkout);
  if (git === null) return refuse(`${request.checkout} is not a git work tree`);
  look.checkout = git.topLevel;
  if (session.branch !== null) {
    look.branch_tip = await resolveCommit(git.topLevel, `refs/heads/${session.branch}`);
    look.branch_exists = look.branch_tip !== null;
  }
  look.base = request.into ?? request.recordedInto ?? git.headBranch;
  if (session.status === "running")
    return refuse(`session ${id} is still running: merge it once it has finished`);
  if (session.accepted !== 1) {
    const why = session.reason ? `: ${session.reason}` : "";
    return refuse(
      `session ${id} was not accepted (status ${session.status}${why}): only an accepted run is merged`,
    );
  }
  if (session.branch === null)
    return refuse(
      `session ${id} ran in place: its changes are in the checkout already, there is no branch to merge`,
    );
  if (look.branch_tip === null)
    return refuse(
      `branch ${session.branch} of session ${id} is gone (deleted by sssf clean or git branch -D): nothing to merge`,
    );
  if (look.base === null)
    return refuse(
      `HEAD is detached in ${git.topLevel}: check out the branch to merge into (or pass --into <branch>)`,
    );
  look.base_tip = await resolveCommit(git.topLevel, `refs/heads/${look.base}`);
  if (look.base_tip === null) return refuse(`branch ${look.base} does not exist in ${git.topLevel}`);
  if (git.headBranch !== look.base)
    return refuse(
      `the checkout ${git.topLevel} is on ${git.headBranch ?? "a detached HEAD"}, not on ${look.base}: git switch ${look.base} first`,
    );
  // Without a named base, HEAD's branch is taken only when it holds the commit the run started from.
  if (request.into === undefined && request.recordedInto === null && session.base_ref !== null) {
    const holds = await gitOutcome(git.topLevel, [
      "merge-base",
      "--is-ancestor",
      session.base_ref,
      look.base_tip,
    ]);
    if (!holds.ok)
      return refuse(
        `${look.base} does not hold ${session.base_ref.slice(0, 12)}, the commit session ${id} started from: switch to the branch it started from, or pass --into <branch>`,
      );
  }
  const log = await gitOrThrow(git.topLevel, [
    "log",
    "--reverse",
    "--format=%H%x00%s",
    `${look.base_tip}..${look.branch_tip}`,
    "--",
  ]);
  look.commits = lines(log).map((line) => {
    const [sha = "", subject = ""] = line.split("\0");
    return { sha, subject };
  });
  if (look.commits.length === 0)
    return refuse(`nothing to merge: ${look.base} already holds every commit of ${session.branch}`);
  look.behind = Number(
    (await gitOrThrow(git.topLevel, ["rev-list", "--count", `${look.branch_tip}..${look.base_tip}`])).trim(),
  );
  let result = look.branch_tip;
  if (look.behind > 0) {
    const merged = await mergeTree(git.topLevel, look.base_tip, look.branch_tip);
    look.conflicts = merged.conflicts;
    if (merged.conflicts.length > 0)
      return refuse(
        `${look.base} moved ${plural(look.behind, "commit")} since the run started and merging ${session.branch} would conflict in ${listed(merged.conflicts)}: rebase or merge by hand`,
      );
    result = merged.tree;
    look.tree = merged.tree;
  }
  look.files = lines(
    await gitOrThrow(git.topLevel, ["diff", "--name-only", "--no-renames", look.base_tip, result, "--"]),
  );
  if (look.behind > 0 && strategy === "ff")
    return refuse(
      `${look.base} moved ${plural(look.behind, "commit")} since the run started, so a fast-forward is impossible (it would merge cleanly): set merge.strategy: merge-commit in the config, or rebase ${session.branch}`,
    );
  const dirty = new Set(await uncommittedPaths(git.topLevel));
  const touched = look.files.filter((file) => dirty.has(file));
  if (touched.length > 0)
    return refuse(
      `the checkout ${git.topLevel} has uncommitted changes to ${plural(touched.length, "file")} the merge changes (${listed(touched)}): commit or stash them first`,
    );
  look.method = look.behind > 0 ? "merge-commit" : "fast-forward";
  return look;
}
