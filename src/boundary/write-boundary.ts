import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { locateGitRepo } from "../code/git.js";
import type { AgentConfig, SssfConfig } from "../config/config-types.js";
import type { ToolCall } from "../runtimes/runtime.js";
import { ownOutputFilesUnder } from "../util/own-output-files.js";
import { LINKED_DEPENDENCIES } from "../workspace/worktree-links.js";
import { readBlob, storeBlobs } from "./trees/blob-store.js";
import { rootHead } from "./trees/root-head.js";
import type { Walk } from "./trees/root-walk.js";
import { assignBlame, settleJudge, sidesOf } from "./write-boundary-attribution.js";
import { ActivityRecorder, type ToolActivity } from "./write-boundary-attribution-time.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import { BoundaryGuards, type GuardCheckpoint } from "./write-boundary-guards.js";
import {
  checkpointInside,
  type InsideCheckpoint,
  STORE_UP_TO_BYTES,
  settleInside,
} from "./write-boundary-inside.js";
import {
  checkpointOutside,
  type OutsideCheckpoint,
  type OutsideContext,
  settleOutside,
} from "./write-boundary-outside.js";
import {
  isWithin,
  namedInsideRoot,
  realPathOf,
  resolveToolPath,
  toolCallPaths,
  withRealPaths,
} from "./write-boundary-paths.js";
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
  /**
   * The operator's checkout (any folder in it). When its work tree is not the run root's (a worktree
   * run), it is guarded like the run root, every path outside the boundary. Default: the main
   * worktree when the run root is in a linked one.
   */
  checkout?: string;
  /** Prefixes (relative to the checkout's top level) sssf owns there, left out of its snapshot. Read before each send. */
  checkoutExclude?: (top: string) => string[];
}

/** The state taken before one send; `settle` judges and undoes what the send did. */
export interface BoundaryCheckpoint {
  /** Tells the boundary of a tool call as it happens, so a sibling's settle sees the paths it named. */
  noteToolCall(call: ToolCall): void;
  /**
   * Restores every change outside the boundary and resolves to them; never call twice. While other
   * agents of the run send too, changes that are theirs are left alone, and breaches a sibling's settle
   * put on this send are included (docs/write-boundaries.md, "Concurrent agents"). `toolCalls` are
   * calls of the send not told to `noteToolCall` as they streamed (none when every one was).
   */
  settle(toolCalls: readonly ToolCall[]): Promise<BoundaryBreach[]>;
}

/** Everything one send's checkpoint holds. */
interface Taken {
  inside: InsideCheckpoint;
  /** Null for a boxed send: nothing outside the repository is looked at. */
  before: OutsideCheckpoint | null;
  guards: GuardCheckpoint;
  outside: OutsideContext;
  exclude: string[];
}

/**
 * One agent's write boundary over a run root (DESIGN §6: enforced after every send, whatever the
 * send's JSON, gates or exit). Keeps what it stored in git between sends, so an unchanged dirty file
 * is hashed into the object database once per run, not once per send. Beyond the root's snapshot it
 * guards the repository's hooks and config, what symlinks lead to out of the root (the linked
 * dependency folders among them) and, in a worktree run, the operator's checkout.
 */
export class WriteBoundary {
  readonly judge: BoundaryJudge;
  private readonly stored = new Set<string>();
  private lastOutside: OutsideCheckpoint | null = null;
  private lastWalk: Walk | null = null;
  private git: Promise<boolean> | null = null;
  private roots: string[] | null = null;
  private readonly realRoot: string;
  private readonly sends: BoundarySends;
  private readonly guards: BoundaryGuards;

  constructor(private readonly options: WriteBoundaryOptions) {
    this.judge = compileBoundary(options);
    this.sends = options.sends ?? new BoundarySends();
    const { root } = options;
    this.realRoot = realPathOf(root);
    this.guards = new BoundaryGuards(
      {
        root,
        realRoot: this.realRoot,
        checkout: options.checkout,
        checkoutExclude: options.checkoutExclude ?? (() => []),
        stored: this.stored,
        listings: this.sends.listings,
        ownPaths: options.ownPaths,
      },
      { store: (cwd) => (files) => storeBlobs(cwd, files), read: (cwd) => (oid) => readBlob(cwd, oid) },
    );
  }

  /**
   * Walks the run root and stores what a breach could destroy: the content of every file outside the
   * boundary the commit lacks, the git dir's hooks, config and `info/`, the refs and index flags, the
   * linked folders, and the operator's checkout in a worktree run; outside the repository only `lstat`
   * facts (the parent folder, link targets elsewhere), and with `sandboxed` (the send runs inside the
   * OS sandbox) nothing at all. Rejects only when a walk cannot be taken.
   */
  async checkpoint(sandboxed = false): Promise<BoundaryCheckpoint> {
    const { root } = this.options;
    this.git ??= locateGitRepo(root).then((location) => location !== null);
    const git = await this.git;
    return this.sends.exclusive(async () => {
      const exclude = this.options.exclude();
      const outside = this.outsideContext(git);
      const send = this.sends.open(this.options.agent ?? "agent", this.judge);
      let taken: [InsideCheckpoint, GuardCheckpoint, OutsideCheckpoint | null];
      try {
        const inside = checkpointInside({
          root,
          exclude,
          judge: this.judge,
          stored: this.stored,
          storeUpTo: STORE_UP_TO_BYTES,
          previous: this.lastWalk,
          head: git ? await rootHead(root) : null,
        });
        const guards = this.guards.checkpoint(
          inside.then((checkpoint) => checkpoint.before),
          sandboxed,
        );
        const listing = sandboxed ? Promise.resolve(null) : checkpointOutside(outside, this.lastOutside);
        taken = await Promise.all([inside, guards, listing]);
      } catch (error) {
        this.sends.close(send);
        throw error;
      }
      const [inside, guards, before] = taken;
      this.lastWalk = inside.before;
      if (before !== null) this.lastOutside = before;
      let settled = false;
      // What the send's tool calls named and when they ran, recorded as they stream.
      const activity = new ActivityRecorder();
      return {
        noteToolCall: (call) => this.note(send, activity, call),
        settle: async (toolCalls) => {
          if (settled) throw new Error("a boundary checkpoint is settled once");
          settled = true;
          return this.sends.exclusive(async () => {
            try {
              for (const call of toolCalls) this.note(send, activity, call);
              return await this.settleSend(send, { inside, before, guards, outside, exclude }, activity);
            } finally {
              this.sends.close(send);
            }
          });
        },
      };
    });
  }

  /**
   * Records the paths `call` names (repo-relative inside the root, as breaches name them outside it)
   * and, in `activity`, their real paths and when the call ran.
   */
  private note(send: BoundarySend, activity: ActivityRecorder, call: ToolCall): void {
    this.roots ??= withRealPaths([this.options.root]);
    for (const file of namedInsideRoot(call.args, this.roots)) send.named.add(file);
    for (const raw of toolCallPaths(call.args)) {
      const real = realPathOf(resolveToolPath(raw, this.realRoot));
      activity.name(real);
      if (!isWithin(real, this.realRoot)) send.named.add(this.guards.display(real));
    }
    activity.ran(call);
  }

  private async settleSend(
    send: BoundarySend,
    taken: Taken,
    activity: ToolActivity,
  ): Promise<BoundaryBreach[]> {
    const siblings = this.sends.siblings(send);
    let after: Walk | null = null;
    // The root's `git status` runs while the guards walk: they undo disjoint paths.
    const [inner, guarded] = await Promise.all([
      settleInside(taken.inside, taken.exclude, settleJudge(send, siblings), (snapshot) => {
        after = snapshot;
      }),
      this.guards.settle(taken.guards, activity),
    ]);
    const linkTargets = after === null || taken.before === null ? [] : await this.guards.linkTargets(after);
    // What sssf put back for a sibling is not this agent's change, unless its own tool calls named it.
    const restoredForOthers = [...send.restoredByOthers].filter((file) => !send.named.has(file));
    const seen = new Set([...inner.flatMap(sidesOf), ...restoredForOthers]);
    const outer =
      taken.before === null
        ? []
        : await settleOutside(taken.outside, taken.before, {
            named: activity.named,
            seen,
            linkTargets,
            covered: guarded.covered,
          });
    const found = [...inner, ...outer];
    const blame = assignBlame(send, siblings.inFlight, found);
    // Guards see every change whoever made it: blamed like changes inside the root.
    const guardBlame = assignBlame(send, siblings.inFlight, guarded.breaches, () => false);
    const restored = [...found, ...guarded.breaches].filter((b) => b.restored).flatMap(sidesOf);
    for (const sibling of siblings.inFlight) {
      for (const file of restored) sibling.restoredByOthers.add(file);
      sibling.blamed.push(...(blame.others.get(sibling) ?? []), ...(guardBlame.others.get(sibling) ?? []));
    }
    return [...blame.own, ...guardBlame.own, ...send.blamed];
  }

  private outsideContext(git: boolean): OutsideContext {
    const { root } = this.options;
    return {
      root,
      realRoot: this.realRoot,
      read: git ? (oid) => readBlob(root, oid) : async () => null,
      ownPaths: this.options.ownPaths,
    };
  }
}

/**
 * What the boundary snapshot leaves out: the sessions folder and the database files, every other
 * entry sssf keeps in its data dir except `prompt_engineering/` (protected by default, so it must
 * stay visible), the dependency links of a worktree (`node_modules` as a symlink), and the files sssf's
 * own stdout and stderr were redirected to. Repo-relative
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
  // sssf's own stdout and stderr, redirected into the tree: written by sssf all through every send.
  prefixes.push(...ownOutputFilesUnder(config.repoRoot));
  return prefixes.filter((p) => p !== "" && !p.startsWith("..") && !path.isAbsolute(p));
}

/**
 * The boundary of `agent` in a run whose root is `config.repoRoot` and session folder `sessionDir`;
 * `sends` is the run's registry, shared by the boundaries of agents that may send at the same time;
 * `checkout` the operator's checkout (the run root itself in place), guarded too when it differs.
 */
export function writeBoundaryFor(
  config: SssfConfig,
  agent: AgentConfig,
  sessionDir: string,
  sends?: BoundarySends,
  checkout?: string,
): WriteBoundary {
  return new WriteBoundary({
    root: config.repoRoot,
    writes: agent.writes,
    protectedFiles: config.protectedFiles,
    exclude: () => boundaryExcludes(config),
    ownPaths: [sessionDir],
    agent: agent.name,
    ...(sends ? { sends } : {}),
    ...(checkout ? { checkout } : {}),
    checkoutExclude: (top) => boundaryExcludes({ ...config, repoRoot: top }),
  });
}
