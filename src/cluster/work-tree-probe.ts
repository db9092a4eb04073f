/**
 * Where a run's worktree stands after a phase (docs/cluster.md, "Costs"): its HEAD, that commit's tree,
 * and the tree of everything in it (tracked and untracked, what .gitignore keeps out left out), taken
 * through an index file of the run's own that the worktree's index never sees. The worker compares
 * them with what the remote holds to decide whether a phase pushes anything.
 *
 * Two probes answer the same question. `plain` is the reference: three git calls every time. `status`
 * is the worker's: one `git status` against the run's index, and the plain probe only when it reports
 * a change or HEAD moved; a phase that changed nothing (most of them) costs one git call.
 */

import { existsSync } from "node:fs";
import { runGit } from "../code/run-git.js";

/** A worktree's HEAD, its tree, and the tree of the whole work. */
export interface WorkTreeState {
  head: string;
  headTree: string;
  tree: string;
}

/** Reads where one run's worktree stands, through the run's own index file. */
export interface WorkTreeProbe {
  read(): Promise<WorkTreeState>;
}

/** Which probe a worker uses: `status` (the default) or `plain`, the reference (`SSSF_WORKER_TREE_PROBE`). */
export type WorkTreeProbeKind = "plain" | "status";

/** The probe kind `SSSF_WORKER_TREE_PROBE` names, `status` when unset. */
export function probeKindFromEnv(env: NodeJS.ProcessEnv = process.env): WorkTreeProbeKind {
  return env.SSSF_WORKER_TREE_PROBE === "plain" ? "plain" : "status";
}

/** A probe of `worktree` through the index file `indexFile` (created on the first read). */
export function workTreeProbe(kind: WorkTreeProbeKind, worktree: string, indexFile: string): WorkTreeProbe {
  const plain = new PlainProbe(worktree, indexFile);
  return kind === "plain" ? plain : new StatusProbe(worktree, indexFile, plain);
}

/**
 * The reference: HEAD and its tree, the run's index re-read from HEAD when HEAD moved (so `git add`
 * re-reads only files whose stat changed), every change staged into it, and its tree written.
 */
class PlainProbe implements WorkTreeProbe {
  /** The HEAD the index was last read from; null before the first read. */
  private indexHead: string | null = null;
  /** What the last read found: the index holds exactly `last.tree` until the next read. */
  last: WorkTreeState | null = null;

  constructor(
    readonly worktree: string,
    readonly indexFile: string,
  ) {}

  get env(): NodeJS.ProcessEnv {
    return { GIT_INDEX_FILE: this.indexFile };
  }

  async read(): Promise<WorkTreeState> {
    // Until this read ends the index may hold something else than `last.tree`.
    this.last = null;
    const [head = "", headTree = ""] = (await runGit(this.worktree, ["rev-parse", "HEAD", "HEAD^{tree}"]))
      .trim()
      .split("\n");
    if (this.indexHead !== head || !existsSync(this.indexFile)) {
      await runGit(this.worktree, ["read-tree", "HEAD"], { env: this.env });
      this.indexHead = head;
    }
    await runGit(this.worktree, ["add", "--all", "."], { env: this.env });
    const tree = (await runGit(this.worktree, ["write-tree"], { env: this.env })).trim();
    this.last = { head, headTree, tree };
    return this.last;
  }
}

/**
 * One `git status` first: when HEAD is where the last read left it and no file differs from the run's
 * index (nothing modified, deleted or untracked and not ignored), the work is the tree that index was
 * written as, and nothing else runs. Anything else falls back to the plain probe, which brings the
 * index up to date. git decides what changed (its stat data, and the contents of racily clean files).
 */
class StatusProbe implements WorkTreeProbe {
  constructor(
    private readonly worktree: string,
    private readonly indexFile: string,
    private readonly plain: PlainProbe,
  ) {}

  async read(): Promise<WorkTreeState> {
    const last = this.plain.last;
    if (last === null || !existsSync(this.indexFile)) return this.plain.read();
    const out = await runGit(
      this.worktree,
      ["status", "--porcelain=v2", "--branch", "--untracked-files=all", "--no-renames", "-z"],
      { env: { GIT_INDEX_FILE: this.indexFile } },
    );
    const unchanged = statusHead(out) === last.head && !worktreeDiffers(out);
    return unchanged ? last : this.plain.read();
  }
}

/** HEAD's commit from `git status --porcelain=v2 --branch -z` (null: no commit yet). */
function statusHead(out: string): string | null {
  for (const entry of out.split("\0"))
    if (entry.startsWith("# branch.oid ")) {
      const oid = entry.slice("# branch.oid ".length);
      return /^[0-9a-f]{40,64}$/.test(oid) ? oid : null;
    }
  return null;
}

/**
 * Whether a file of the worktree differs from the index (porcelain v2: an untracked path `?`, an
 * unmerged one `u`, or a changed entry `1 XY …` whose Y, worktree against index, is not `.`). A
 * difference between HEAD and the index alone (X) is the run's uncommitted work the index already holds.
 */
function worktreeDiffers(out: string): boolean {
  for (const entry of out.split("\0")) {
    if (entry === "" || entry.startsWith("# ")) continue;
    if (entry.startsWith("1 ") || entry.startsWith("2 ")) {
      if (entry[3] !== ".") return true;
      continue;
    }
    // `?`, `u`, and anything this parser does not know: take it as a change (the plain probe decides).
    return true;
  }
  return false;
}
