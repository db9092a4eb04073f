import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { readBlob, storeBlobs } from "../code/blob-store.js";
import { locateGitRepo } from "../code/git.js";
import { LINKED_DEPENDENCIES } from "../code/worktree-links.js";
import type { ToolCall } from "../runtimes/runtime.js";
import type { AgentConfig, SssfConfig } from "./config-types.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import { checkpointInside, settleInside } from "./write-boundary-inside.js";
import {
  checkpointOutside,
  type OutsideCheckpoint,
  type OutsideContext,
  settleOutside,
} from "./write-boundary-outside.js";
import { type BoundaryJudge, compileBoundary } from "./write-boundary-rules.js";

/** Where a boundary applies and what it allows. */
export interface WriteBoundaryOptions {
  /** The run root: the working tree the agent works in. */
  root: string;
  /** The agent's `writes` globs. */
  writes: readonly string[];
  /** The roster's `protected_files` globs. */
  protectedFiles: readonly string[];
  /** Repo-relative prefixes sssf writes itself (sessions, database): never snapshotted. Read before each send. */
  exclude: () => string[];
  /** Absolute paths tool calls may always write: the run's session directory. */
  ownPaths: readonly string[];
}

/** The state taken before one send; `settle` judges and undoes what the send did. */
export interface BoundaryCheckpoint {
  /** Restores every change outside the boundary and resolves to them; never call twice. */
  settle(toolCalls: readonly ToolCall[]): Promise<BoundaryBreach[]>;
}

/**
 * One agent's write boundary over a run root (DESIGN §6: enforced after every send, whatever the
 * send's JSON, gates or exit). Keeps what it stored in git between sends, so an unchanged dirty file
 * is hashed into the object database once per run, not once per send.
 */
export class WriteBoundary {
  readonly judge: BoundaryJudge;
  private readonly stored = new Set<string>();
  private lastOutside: OutsideCheckpoint | null = null;
  private git: Promise<boolean> | null = null;

  constructor(private readonly options: WriteBoundaryOptions) {
    this.judge = compileBoundary(options);
  }

  /**
   * Snapshots the run root and stores what a breach could destroy: dirty paths outside the boundary,
   * small files of the root's parent folder, top-level protected files git ignores. Rejects only when
   * `git status` fails inside a work tree.
   */
  async checkpoint(): Promise<BoundaryCheckpoint> {
    const { root } = this.options;
    const exclude = this.options.exclude();
    this.git ??= locateGitRepo(root).then((location) => location !== null);
    const outside = this.outsideContext(await this.git);
    const [inside, before] = await Promise.all([
      checkpointInside(root, exclude, this.judge, this.stored),
      checkpointOutside(outside, this.lastOutside),
    ]);
    this.lastOutside = before;
    let settled = false;
    return {
      settle: async (toolCalls) => {
        if (settled) throw new Error("a boundary checkpoint is settled once");
        settled = true;
        const inner = await settleInside(inside, exclude, this.judge);
        const seen = new Set(inner.flatMap((b) => (b.previousPath ? [b.path, b.previousPath] : [b.path])));
        const outer = await settleOutside(outside, before, toolCalls, seen);
        return [...inner, ...outer];
      },
    };
  }

  private outsideContext(git: boolean): OutsideContext {
    const { root, protectedFiles } = this.options;
    const isProtected =
      protectedFiles.length > 0 ? picomatch([...protectedFiles], { dot: true }) : () => false;
    return {
      root,
      isProtectedTop: (name) => isProtected(name),
      store: git ? (files) => storeBlobs(root, files) : null,
      read: (oid) => readBlob(root, oid),
      ownPaths: this.options.ownPaths,
    };
  }
}

/**
 * What the boundary snapshot leaves out: the sessions folder and the database files, every other
 * entry sssf keeps in its data dir except `prompt_engineering/` (protected by default, so it must
 * stay visible), and the dependency links of a worktree (`node_modules` as a symlink). Repo-relative
 * POSIX prefixes; never throws.
 */
export function boundaryExcludes(config: SssfConfig): string[] {
  const relative = (target: string) => path.relative(config.repoRoot, target).split(path.sep).join("/");
  const db = relative(config.dbPath);
  const prefixes = [relative(config.sessionsDir), db, `${db}-wal`, `${db}-shm`, `${db}-journal`];
  const data = relative(config.dataDir);
  if (data !== "" && !data.startsWith("..")) {
    let names: string[] = [];
    try {
      names = readdirSync(config.dataDir);
    } catch {
      // no data dir yet: nothing of sssf's to leave out
    }
    prefixes.push(...names.filter((name) => name !== "prompt_engineering").map((name) => `${data}/${name}`));
  }
  for (const name of LINKED_DEPENDENCIES) {
    if (lstatSync(path.join(config.repoRoot, name), { throwIfNoEntry: false })?.isSymbolicLink())
      prefixes.push(name);
  }
  return prefixes.filter((p) => p !== "" && !p.startsWith("..") && !path.isAbsolute(p));
}

/** The boundary of `agent` in a run whose root is `config.repoRoot` and session folder `sessionDir`. */
export function writeBoundaryFor(config: SssfConfig, agent: AgentConfig, sessionDir: string): WriteBoundary {
  return new WriteBoundary({
    root: config.repoRoot,
    writes: agent.writes,
    protectedFiles: config.protectedFiles,
    exclude: () => boundaryExcludes(config),
    ownPaths: [sessionDir],
  });
}
