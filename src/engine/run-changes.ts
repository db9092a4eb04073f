import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { normalizeExcludes } from "../code/exclude-prefixes.js";
import { locateGitRepo } from "../code/git.js";
import {
  commitChanges,
  diffChanges,
  type KnownHead,
  PreparedIndex,
  touchedPaths,
} from "../code/git-commit.js";
import { diffSnapshots, snapshotWorkingTree, type TreeSnapshot } from "../code/working-tree.js";
import { SssfError } from "../errors/sssf-error.js";
import type { PathChange } from "../gates/gate.js";
import { redactSecrets } from "../util/secrets/redact.js";

export interface RunChangesOptions {
  root: string;
  /** Prefixes sssf owns (data dir, db files, linked dependency folders): never the run's changes. */
  exclude: string[];
  /**
   * True when the run owns the whole working tree (its own worktree): everything that differs from
   * HEAD is the run's. False in place: only what changed after the run started is.
   */
  ownsTree: boolean;
  /**
   * With `ownsTree`: the commit the root's HEAD is at as the run starts, when sssf just made it so (a
   * worktree it created): the baseline is then that commit, without reading the tree. Unset: read it.
   */
  startsAt?: string;
}

export interface CapturedChanges {
  files: PathChange[];
  diff: string;
  stat: string;
  base: string;
}

/**
 * The run's own changes: what differs between a baseline (run start, or the last commit the run made)
 * and the working tree now. Commits and captured diffs hold exactly these paths, so the operator's
 * uncommitted work in an in-place run is never swept into a factory commit.
 */
export class RunChanges {
  private baseline: Promise<TreeSnapshot>;

  constructor(private readonly options: RunChangesOptions) {
    this.baseline = this.initialBaseline();
  }

  /**
   * Takes the baseline again, from the tree as it is now: after a resume put the worktree (and maybe
   * HEAD) back to a checkpoint, the baseline read at the start names a HEAD that may be gone.
   */
  restart(): Promise<void> {
    this.baseline = this.initialBaseline(false);
    return this.baseline.then(() => undefined);
  }

  private async initialBaseline(atStart = true): Promise<TreeSnapshot> {
    const { root, exclude, ownsTree, startsAt } = this.options;
    // Nothing differs from HEAD in a clean snapshot: every dirty path then counts as the run's.
    if (ownsTree && startsAt !== undefined && atStart) return cleanSnapshot(root, exclude, startsAt);
    const now = await snapshotWorkingTree(root, { exclude });
    if (!ownsTree || !now.git) return now;
    return { ...now, entries: new Map(), headEntries: new Map() };
  }

  /** What the run changed since its baseline, sorted by path. */
  async pending(): Promise<PathChange[]> {
    return (await this.pendingNow()).files;
  }

  /** The pending changes, and the snapshot they end at (its HEAD is what a diff or commit builds on). */
  private async pendingNow(): Promise<{ files: PathChange[]; after: TreeSnapshot }> {
    const after = await snapshotWorkingTree(this.options.root, { exclude: this.options.exclude });
    return { files: diffSnapshots(await this.baseline, after), after };
  }

  /** The pending changes with their diff against HEAD. */
  async capture(): Promise<CapturedChanges> {
    const { files, after } = await this.pendingNow();
    const { diff, stat, base } = await this.requireGit("capture changes", () =>
      diffChanges(this.options.root, files, knownHead(after)),
    );
    return { files, diff, stat, base };
  }

  /** Commits the pending changes; null when there are none. The baseline moves to the new commit. */
  async commit(message: string): Promise<{ commit: string; files: PathChange[] } | null> {
    // HEAD's tree is read into the commit's private index while `git status` looks for the changes.
    const base = await this.baseline;
    const prepared = base.git ? new PreparedIndex(this.options.root, base.headCommit ?? null) : undefined;
    try {
      const { files, after } = await this.pendingNow();
      if (files.length === 0) return null;
      const commit = await this.requireGit("commit", () =>
        commitChanges(this.options.root, files, message, knownHead(after), prepared),
      );
      this.baseline = Promise.resolve(committedSnapshot(after, files, commit));
      return { commit, files };
    } finally {
      await prepared?.discard();
    }
  }

  private async requireGit<T>(what: string, body: () => Promise<T>): Promise<T> {
    if ((await locateGitRepo(this.options.root)) === null) {
      throw new SssfError(
        "not_a_git_repo",
        `cannot ${what}: ${this.options.root} is not a git work tree (run "git init" and commit once)`,
      );
    }
    return body();
  }
}

/** HEAD as a git snapshot read it; unknown (read again) outside git. */
function knownHead(snapshot: TreeSnapshot): KnownHead {
  return snapshot.git ? { head: snapshot.headCommit ?? null } : {};
}

/**
 * The tree right after `commit` recorded `files` as they were in `after` (or as `git add` found them
 * moments later): those paths now equal HEAD, every other path differs from it as it did. Derived,
 * not read again: a commit's plumbing (`commit-tree`, `update-ref`) runs no hook that could write.
 */
function committedSnapshot(after: TreeSnapshot, files: readonly PathChange[], commit: string): TreeSnapshot {
  const committed = new Set(touchedPaths(files));
  const without = <V>(map: Map<string, V> | undefined) =>
    new Map([...(map ?? [])].filter(([file]) => !committed.has(file)));
  return {
    ...after,
    headCommit: commit,
    entries: without(after.entries),
    headEntries: without(after.headEntries),
    modes: without(after.modes),
  };
}

/** A snapshot of a git work tree at `head` with nothing differing from it, taken without git. */
function cleanSnapshot(root: string, exclude: string[], head: string): TreeSnapshot {
  const absolute = path.resolve(root);
  return {
    root: absolute,
    entries: new Map(),
    git: true,
    headCommit: head,
    headEntries: new Map(),
    exclude: normalizeExcludes(absolute, exclude),
    modes: new Map(),
  };
}

/** Saves a captured diff, secrets redacted, as `<session>/changes/<stem>.diff`; returns its path. */
export function saveDiff(sessionRoot: string, stem: string, diff: string): string {
  const dir = path.join(sessionRoot, "changes");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${stem}.diff`);
  writeFileSync(file, redactSecrets(diff));
  return file;
}
