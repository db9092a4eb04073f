/**
 * A worker's copy of the repository (docs/cluster.md): one clone of the shared remote per worker, kept
 * warm across runs (fetched only when a run's base commit is missing, and at a takeover only the run's
 * two refs), a detached checkout per run at the run's base commit (where its workflow, config and
 * prompts are read), and what the run made pushed back when it changed: its branch after a commit, its
 * uncommitted work as `refs/sssf/wip/<adw_id>`, so a worker that takes the run over starts where it
 * stopped.
 */

import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { runGit } from "../code/run-git.js";
import { SssfError } from "../errors/sssf-error.js";
import { currentWorkerMetrics } from "./metrics.js";

/** The ref a run's uncommitted work is pushed to: a commit on top of the branch's head. */
export function wipRef(adwId: string): string {
  return `refs/sssf/wip/${adwId}`;
}

/** A git remote URL or path, as the worker was told it. */
export class WorkerRepo {
  /** The worker's clone. */
  readonly clone: string;

  constructor(
    readonly remote: string,
    readonly workDir: string,
  ) {
    this.clone = path.join(workDir, "repo");
  }

  /** Clones the remote on the first start; later starts fetch into the clone they find. */
  async prepare(): Promise<void> {
    mkdirSync(this.workDir, { recursive: true });
    if (existsSync(path.join(this.clone, ".git"))) {
      await this.fetch();
      return;
    }
    await runGit(this.workDir, ["clone", "--quiet", "--no-checkout", this.remote, this.clone], {
      message: (_failure, reason) => `sssf worker: cannot clone ${this.remote} into ${this.clone}: ${reason}`,
    });
  }

  /** Brings the remote's branches and the run refs up to date. */
  async fetch(): Promise<void> {
    await runGit(
      this.clone,
      ["fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/remotes/origin/*"],
      {
        message: (_failure, reason) => `sssf worker: cannot fetch from ${this.remote}: ${reason}`,
      },
    );
  }

  /**
   * The commits `refs` name on the remote right now (absent: the remote has no such ref), fetched into
   * the same refs of the clone (forced: the remote is the truth): one listing and one fetch for all.
   */
  async fetchRefs(refs: string[]): Promise<Map<string, string>> {
    const out = await runGit(this.clone, ["ls-remote", "origin", ...refs]);
    const found = new Map<string, string>();
    for (const line of out.split("\n")) {
      const [commit, ref] = line.split("\t");
      if (commit !== undefined && ref !== undefined && refs.includes(ref)) found.set(ref, commit);
    }
    if (found.size > 0)
      await runGit(this.clone, [
        "fetch",
        "--quiet",
        "origin",
        ...[...found.keys()].map((ref) => `+${ref}:${ref}`),
      ]);
    return found;
  }

  /** The tree of `commit`. */
  async treeOf(commit: string): Promise<string> {
    return (await runGit(this.clone, ["rev-parse", `${commit}^{tree}`])).trim();
  }

  /** Whether the clone has `commit` (after a fetch). */
  async hasCommit(commit: string): Promise<boolean> {
    try {
      await runGit(this.clone, ["cat-file", "-e", `${commit}^{commit}`]);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * A detached checkout of `commit` for one run at `dir`, replacing what an earlier attempt left there.
   * Its workflow file, config and prompts are the base commit's, as on the machine that submitted it.
   */
  async checkoutFor(dir: string, commit: string): Promise<void> {
    if (!(await this.hasCommit(commit)))
      throw new SssfError(
        "git_failed",
        `the run's base commit ${commit.slice(0, 12)} is not on ${this.remote}: push it, then submit again`,
      );
    await this.removeCheckout(dir);
    mkdirSync(path.dirname(dir), { recursive: true });
    await runGit(this.clone, ["worktree", "add", "--quiet", "--detach", "--force", dir, commit]);
  }

  /** Removes a run's checkout (and every worktree registered inside it) and forgets it. */
  async removeCheckout(dir: string): Promise<void> {
    rmSync(dir, { recursive: true, force: true });
    await runGit(this.clone, ["worktree", "prune"]);
  }

  /** The run's uncommitted work `tree` as a commit on top of `head` (the wip ref's commit). */
  async wipCommit(worktree: string, tree: string, head: string, message: string): Promise<string> {
    return (await runGit(worktree, ["commit-tree", tree, "-p", head, "-m", message])).trim();
  }

  /**
   * Pushes in one go: `branch` of `worktree` (a fast-forward only, so a stale worker cannot win) when
   * given, and the run's own `ref` forced to `commit` (deleted for null) when given.
   */
  async push(
    worktree: string,
    update: { branch?: string; ref?: { name: string; commit: string | null } },
  ): Promise<void> {
    const specs: string[] = [];
    if (update.branch !== undefined) specs.push(`refs/heads/${update.branch}:refs/heads/${update.branch}`);
    if (update.ref !== undefined)
      specs.push(
        update.ref.commit === null ? `:${update.ref.name}` : `+${update.ref.commit}:${update.ref.name}`,
      );
    if (specs.length === 0) return;
    // Atomic: the wip ref is always on top of the branch the remote has. A remote that is briefly
    // unreachable gets two more tries; a refused fast-forward (a stale worker) fails at once.
    for (let attempt = 1; ; attempt++) {
      try {
        const pushing = () =>
          runGit(worktree, ["push", "--quiet", "--atomic", "origin", ...specs], {
            message: (_failure, reason) => `cannot push ${specs.join(" ")} to ${this.remote}: ${reason}`,
          });
        const metrics = currentWorkerMetrics();
        await (metrics === undefined ? pushing() : metrics.timePush(pushing));
        return;
      } catch (error) {
        if (attempt === 3 || /\[rejected\]|non-fast-forward|fetch first/.test((error as Error).message))
          throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      }
    }
  }

  /**
   * Puts `commit`'s tree into `worktree` as uncommitted work on top of HEAD (files it adds, changes and
   * deletes), leaving HEAD and the index where they are.
   */
  async restoreSnapshot(worktree: string, commit: string): Promise<void> {
    await runGit(worktree, ["read-tree", "-m", "-u", "HEAD", commit]);
    await runGit(worktree, ["reset", "--quiet"]);
  }
}
