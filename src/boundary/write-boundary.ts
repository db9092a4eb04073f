import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { locateGitRepo } from "../code/git.js";
import type { AgentConfig, SssfConfig } from "../config/config-types.js";
import type { ToolCall } from "../runtimes/runtime.js";
import { LINKED_DEPENDENCIES } from "../workspace/worktree-links.js";
import { readBlob, storeBlobs } from "./blob-store.js";
import { assignBlame, settleJudge, sidesOf } from "./write-boundary-attribution.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import { checkpointInside, type InsideCheckpoint, settleInside } from "./write-boundary-inside.js";
import {
  checkpointOutside,
  type OutsideCheckpoint,
  type OutsideContext,
  settleOutside,
} from "./write-boundary-outside.js";
import { namedInsideRoot, withRealPaths } from "./write-boundary-paths.js";
import { type BoundaryJudge, compileBoundary } from "./write-boundary-rules.js";
import { type BoundarySend, BoundarySends } from "./write-boundary-sends.js";

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
  /** The agent whose boundary this is, as named in breaches a sibling's settle puts on it (default "agent"). */
  agent?: string;
  /**
   * The run's registry of sends, shared by the boundaries of agents that may send at the same time
   * (default: one of this boundary's own, which makes every change its agent's).
   */
  sends?: BoundarySends;
}

/** The state taken before one send; `settle` judges and undoes what the send did. */
export interface BoundaryCheckpoint {
  /** Tells the boundary of a tool call as it happens, so a sibling's settle sees the paths it named. */
  noteToolCall(call: ToolCall): void;
  /**
   * Restores every change outside the boundary and resolves to them; never call twice. While other
   * agents of the run send too, changes that are theirs are left alone, and breaches a sibling's settle
   * put on this send are included (docs/write-boundaries.md, "Concurrent agents").
   */
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
  private roots: string[] | null = null;
  private readonly sends: BoundarySends;

  constructor(private readonly options: WriteBoundaryOptions) {
    this.judge = compileBoundary(options);
    this.sends = options.sends ?? new BoundarySends();
  }

  /**
   * Snapshots the run root and stores what a breach could destroy: dirty paths outside the boundary,
   * small files of the root's parent folder, top-level protected files git ignores. Rejects only when
   * `git status` fails inside a work tree.
   */
  async checkpoint(): Promise<BoundaryCheckpoint> {
    const { root } = this.options;
    this.git ??= locateGitRepo(root).then((location) => location !== null);
    const git = await this.git;
    return this.sends.exclusive(async () => {
      const exclude = this.options.exclude();
      const outside = this.outsideContext(git);
      const send = this.sends.open(this.options.agent ?? "agent", this.judge);
      let taken: [InsideCheckpoint, OutsideCheckpoint];
      try {
        taken = await Promise.all([
          checkpointInside(root, exclude, this.judge, this.stored),
          checkpointOutside(outside, this.lastOutside),
        ]);
      } catch (error) {
        this.sends.close(send);
        throw error;
      }
      const [inside, before] = taken;
      this.lastOutside = before;
      let settled = false;
      return {
        noteToolCall: (call) => this.note(send, call),
        settle: async (toolCalls) => {
          if (settled) throw new Error("a boundary checkpoint is settled once");
          settled = true;
          return this.sends.exclusive(async () => {
            try {
              for (const call of toolCalls) this.note(send, call);
              return await this.settleSend(send, { inside, before, outside, exclude }, toolCalls);
            } finally {
              this.sends.close(send);
            }
          });
        },
      };
    });
  }

  private note(send: BoundarySend, call: ToolCall): void {
    this.roots ??= withRealPaths([this.options.root]);
    for (const file of namedInsideRoot(call.args, this.roots)) send.named.add(file);
  }

  private async settleSend(
    send: BoundarySend,
    taken: {
      inside: InsideCheckpoint;
      before: OutsideCheckpoint;
      outside: OutsideContext;
      exclude: string[];
    },
    toolCalls: readonly ToolCall[],
  ): Promise<BoundaryBreach[]> {
    const siblings = this.sends.siblings(send);
    const inner = await settleInside(taken.inside, taken.exclude, settleJudge(send, siblings));
    // What sssf put back for a sibling is not this agent's change, unless its own tool calls named it.
    const restoredForOthers = [...send.restoredByOthers].filter((file) => !send.named.has(file));
    const seen = new Set([...inner.flatMap(sidesOf), ...restoredForOthers]);
    const outer = await settleOutside(taken.outside, taken.before, toolCalls, seen);
    const found = [...inner, ...outer];
    const blame = assignBlame(send, siblings.inFlight, found);
    const restored = found.filter((b) => b.restored).flatMap(sidesOf);
    for (const sibling of siblings.inFlight) {
      for (const file of restored) sibling.restoredByOthers.add(file);
      sibling.blamed.push(...(blame.others.get(sibling) ?? []));
    }
    return [...blame.own, ...send.blamed];
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

/**
 * The boundary of `agent` in a run whose root is `config.repoRoot` and session folder `sessionDir`;
 * `sends` is the run's registry, shared by the boundaries of agents that may send at the same time.
 */
export function writeBoundaryFor(
  config: SssfConfig,
  agent: AgentConfig,
  sessionDir: string,
  sends?: BoundarySends,
): WriteBoundary {
  return new WriteBoundary({
    root: config.repoRoot,
    writes: agent.writes,
    protectedFiles: config.protectedFiles,
    exclude: () => boundaryExcludes(config),
    ownPaths: [sessionDir],
    agent: agent.name,
    ...(sends ? { sends } : {}),
  });
}
