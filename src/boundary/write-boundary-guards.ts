/**
 * What a write boundary guards beyond the run root's own snapshot: the repository's hooks and config,
 * the folders and files symlinks lead to out of the root (the dependency folders a worktree links in
 * among them), and, in a worktree run, the operator's checkout. Located once per boundary; taken
 * before and settled after every send, inside the run's turn-taking.
 */

import path from "node:path";
import { repoFacts } from "../code/git-facts.js";
import { LINKED_DEPENDENCIES } from "../workspace/worktree-links.js";
import type { StoreFiles } from "./trees/dir-listing.js";
import { IndexFlagReader, type IndexFlags, restoreIndexFlags } from "./trees/git-index-flags.js";
import { diffRefs, ownRefs, type RefValues, readRefs, resolveRef, restoreRefs } from "./trees/git-refs.js";
import type { BlobReader } from "./trees/restore-paths.js";
import type { Walk } from "./trees/root-walk.js";
import type { TreeListing } from "./trees/tree-listing.js";
import {
  checkpointWatches,
  isWatched,
  settleWatches,
  type Watch,
  type WatchCheckpoint,
} from "./trees/watched-trees.js";
import type { ToolActivity } from "./write-boundary-attribution-time.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import {
  type CheckoutCheckpoint,
  type CheckoutContext,
  checkoutFollowed,
  checkpointCheckout,
  inCheckoutSnapshot,
  settleCheckout,
} from "./write-boundary-checkout.js";
import { type GitPlaces, gitGuarded, locateGitPlaces, MAX_HOOK_ENTRIES } from "./write-boundary-git-dir.js";
import { dependencyLinks, isDependencyCache, linksOut, walkLinks } from "./write-boundary-links.js";
import { displayPath, isWithin, realPathOf } from "./write-boundary-paths.js";

/** Most entries of a dependency folder watched (a large `node_modules`). */
export const MAX_DEPENDENCY_ENTRIES = 200_000;
/** Most entries of another link target watched. */
export const MAX_LINK_TARGET_ENTRIES = 20_000;

/** What the guards of one boundary work with. */
export interface GuardOptions {
  root: string;
  realRoot: string;
  /** The operator's checkout (any folder in it); unset: the main worktree when the root is a linked one. */
  checkout?: string | undefined;
  /** Prefixes (relative to the checkout's top) sssf owns in the checkout. Read before each send. */
  checkoutExclude: (top: string) => string[];
  /** Blob ids this boundary stored already. */
  stored: Set<string>;
  /** The latest listing of each watched path, shared by the run's boundaries. */
  listings: Map<string, TreeListing>;
  /** Absolute paths sssf writes while the agent runs (the session directory). */
  ownPaths: readonly string[];
}

interface Located {
  places: GitPlaces;
  index: IndexFlagReader;
  checkout: Omit<CheckoutContext, "exclude"> | null;
  store: StoreFiles;
  read: BlobReader;
}

/** The guards' state before one send. */
export interface GuardCheckpoint {
  watches: WatchCheckpoint[];
  checkout: { context: CheckoutContext; checkpoint: CheckoutCheckpoint } | null;
  /** The repository's refs, and the hiding flags of the run root's index. */
  refs: RefValues | null;
  indexFlags: IndexFlags;
}

/** What settling the guards found, and what the boundary's named-path check must leave to them. */
export interface GuardSettlement {
  breaches: BoundaryBreach[];
  /** True for a real path a watch or the checkout's snapshot judged. */
  covered: (real: string) => boolean;
}

const NONE: GuardCheckpoint = { watches: [], checkout: null, refs: null, indexFlags: new Map() };

/** False when the send's tool calls named no path and none ran: `byTheAgent` then says no to every path. */
function hasActivity(activity: ToolActivity): boolean {
  return activity.named.size > 0 || activity.windows.length > 0;
}

/**
 * Lets pending continuations run, so `git` processes already asked for are spawned before a
 * synchronous stat walk holds the thread: they then work while it walks.
 */
function spawned(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The guards of one boundary. */
export class BoundaryGuards {
  private located: Promise<Located | null> | null = null;
  private lastCheckout: CheckoutCheckpoint | null = null;
  private near: string[];

  constructor(
    private readonly options: GuardOptions,
    private readonly blobs: { store: (cwd: string) => StoreFiles; read: (cwd: string) => BlobReader },
  ) {
    this.near = [path.dirname(options.realRoot)];
  }

  private async locate(): Promise<Located | null> {
    const { root, realRoot } = this.options;
    const places = await locateGitPlaces(root);
    if (places === null) return null;
    let top: string | null = null;
    let checkoutGit = { commonDir: places.commonDir, gitDir: places.commonDir };
    if (this.options.checkout !== undefined) {
      const located = await locateGitPlaces(this.options.checkout);
      top = located?.topLevel ?? null;
      if (located) checkoutGit = located;
    } else if (places.gitDir !== places.commonDir && path.basename(places.commonDir) === ".git")
      top = path.dirname(places.commonDir);
    const checkoutTop = top !== null && top !== places.topLevel ? top : null;
    const checkout =
      checkoutTop === null
        ? null
        : {
            top: checkoutTop,
            commonDir: checkoutGit.commonDir,
            gitDir: checkoutGit.gitDir,
            store: this.blobs.store(checkoutTop),
            read: this.blobs.read(checkoutTop),
          };
    this.near = [path.dirname(realRoot), places.commonDir, ...(checkoutTop ? [checkoutTop] : [])];
    const format = (await repoFacts(root))?.format ?? "sha1";
    const index = new IndexFlagReader(places.gitDir, format);
    return { places, index, checkout, store: this.blobs.store(root), read: this.blobs.read(root) };
  }

  /**
   * How breaches name a real path outside the root: relative to it near the root (its parent folder,
   * the git dir, the operator's checkout), absolute elsewhere.
   */
  display(real: string): string {
    return displayPath(this.options.realRoot, real, this.near);
  }

  /**
   * False for a link target no watch may cover: one holding the run root, the git dir or sssf's own
   * files (sessions, database), or inside the git dir (objects and index change with every git command).
   */
  private safeTarget(target: string, places: GitPlaces, checkout: CheckoutContext | null): boolean {
    const kept = [
      places.commonDir,
      places.gitDir,
      ...this.options.ownPaths.map(realPathOf),
      ...(checkout ? checkout.exclude.map((prefix) => path.join(checkout.top, prefix)) : []),
    ];
    if ([this.options.realRoot, ...kept].some((dir) => isWithin(dir, target))) return false;
    return !kept.some((dir) => isWithin(target, dir));
  }

  /** The real targets outside the root of the links the root holds in `walk` that a watch may cover. */
  async linkTargets(walk: Walk): Promise<string[]> {
    const located = await this.located;
    if (!located) return [];
    const checkout = located.checkout
      ? { ...located.checkout, exclude: this.checkoutExclude(located.checkout.top) }
      : null;
    return linksOut(this.options.root, this.options.realRoot, walkLinks(walk))
      .map((out) => out.target)
      .filter((target) => this.safeTarget(target, located.places, checkout));
  }

  /** The watches that need no snapshot: git's hooks and config, the dependency folders. */
  private baseWatches(located: Located, checkout: CheckoutContext | null): Watch[] {
    const { places } = located;
    const guarded = gitGuarded(places, checkout?.top ?? null);
    const watches: Watch[] = [
      ...guarded.folders.map((target) => ({
        target,
        rule: "protected" as const,
        maxEntries: MAX_HOOK_ENTRIES,
      })),
      ...guarded.files.map((target) => ({ target, rule: "protected" as const, maxEntries: 1 })),
    ];
    // The dependency folders linked into the work tree, and in a worktree run the checkout's own.
    const dependencies = dependencyLinks(this.options.root, places.topLevel).map((link) =>
      path.join(this.options.root, link),
    );
    if (checkout) dependencies.push(...LINKED_DEPENDENCIES.map((name) => path.join(checkout.top, name)));
    for (const target of new Set(dependencies.map(realPathOf))) {
      if (isWithin(target, this.options.realRoot)) continue;
      watches.push({
        target,
        rule: "outside_root",
        maxEntries: MAX_DEPENDENCY_ENTRIES,
        skipTop: isDependencyCache,
        shared: true,
      });
    }
    return watches;
  }

  /**
   * The watches of the targets of `links` (the symlinks the root's walk found) that no other watch,
   * and not the checkout's snapshot, covers. A target outside the checkout is outside every root of
   * the boundary: watched by `lstat` alone, its content never stored. Never rejects.
   */
  private linkWatches(
    located: Located,
    links: readonly string[],
    checkout: CheckoutContext | null,
    watched: readonly WatchCheckpoint[],
  ): Watch[] {
    const targets = linksOut(this.options.root, this.options.realRoot, links)
      .map((out) => out.target)
      .filter(
        (target) =>
          this.safeTarget(target, located.places, checkout) &&
          !watched.some(({ watch }) => isWithin(target, watch.target) || isWithin(watch.target, target)),
      );
    const watches: Watch[] = [];
    // Outermost first: a target below one already watched is watched by it.
    for (const target of [...new Set(targets)].sort((a, b) => a.length - b.length)) {
      if (checkout && inCheckoutSnapshot(checkout, target)) continue;
      if (watches.some((outer) => isWithin(target, outer.target))) continue;
      watches.push({ target, rule: "outside_root", maxEntries: MAX_LINK_TARGET_ENTRIES, statOnly: true });
    }
    return watches;
  }

  /**
   * Takes the guards' state before a send. `before` is the run root's walk, still being taken. With
   * `sandboxed`, nothing outside the repository is looked at: no link target elsewhere is watched.
   * Never rejects.
   */
  async checkpoint(before: Promise<Walk>, sandboxed: boolean): Promise<GuardCheckpoint> {
    before.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    this.located ??= this.locate();
    const located = await this.located;
    if (located === null) return NONE;
    const checkout = located.checkout
      ? { ...located.checkout, exclude: this.checkoutExclude(located.checkout.top) }
      : null;
    const checkoutTaking = checkout
      ? checkpointCheckout(checkout, this.options.stored, this.lastCheckout)
      : Promise.resolve(null);
    checkoutTaking.catch(() => undefined);
    const where = { store: located.store, read: located.read, listings: this.options.listings };
    await spawned();
    // Inside the box every git dir is read-only: a ref that moves during a boxed send is someone else's
    // (the operator, another sssf run merging), never the agent's, and must not be undone.
    const refs = sandboxed ? null : readRefs(located.places);
    const indexFlags = located.index.read();
    const base = await checkpointWatches(this.baseWatches(located, checkout), where);
    const linkWatches = sandboxed ? [] : this.linkWatches(located, walkLinks(await before), checkout, base);
    const taken = [...base, ...(await checkpointWatches(linkWatches, where))];
    const checkpoint = await checkoutTaking;
    this.lastCheckout = checkpoint;
    return {
      watches: taken,
      checkout: checkout && checkpoint ? { context: checkout, checkpoint } : null,
      refs,
      indexFlags,
    };
  }

  private checkoutExclude(top: string): string[] {
    // The checkout's dependency folders are watched on their own (`baseWatches`).
    const exclude = [...this.options.checkoutExclude(top), ...LINKED_DEPENDENCIES];
    const root = path.relative(top, this.options.realRoot).split(path.sep).join("/");
    if (isWithin(this.options.realRoot, top) && root !== "") exclude.push(root);
    return exclude;
  }

  /**
   * Undoes every change the guards see since `taken` (in what other writers share, the checkout, its
   * dependency folders and, in a worktree run, the refs, only what the send's tool calls could have
   * done), and says what they covered. Never rejects.
   */
  async settle(taken: GuardCheckpoint, activity: ToolActivity): Promise<GuardSettlement> {
    const located = await this.located;
    const display = (real: string) => this.display(real);
    const read = located?.read ?? (async () => null);
    const checkout = taken.checkout;
    // The checkout's `git status` runs while the watches are walked: they cover disjoint paths. A send
    // without tool calls can have made no change there that is the agent's (`byTheAgent`): nothing to read.
    const checkoutSettling =
      checkout && hasActivity(activity)
        ? settleCheckout(checkout.context, checkout.checkpoint, display, activity)
        : Promise.resolve([]);
    checkoutSettling.catch(() => undefined);
    await spawned();
    const breaches = await settleWatches(taken.watches, read, display, activity);
    breaches.push(...(await checkoutSettling));
    if (located && taken.refs !== null) {
      const { places } = located;
      const refsBefore = taken.refs;
      const refsNow = readRefs(places);
      let changed = diffRefs(refsBefore, refsNow, ownRefs(places, refsBefore));
      const shared = checkout ? activity : null;
      // The checkout's branch (and HEAD) moved by a commit, merge or pull made there, whose files
      // now match the new commit: the operator's or sssf's doing, like the files themselves.
      const branch = refsBefore.get("HEAD");
      const followed = async (ref: string, was?: string, now?: string) =>
        checkout !== null &&
        (ref === "HEAD" || `ref: ${ref}` === branch) &&
        (await checkoutFollowed(checkout.context.top, resolveRef(refsBefore, was), resolveRef(refsNow, now)));
      const kept: typeof changed = [];
      for (const change of changed)
        if (!(await followed(change.ref, change.was, change.now))) kept.push(change);
      changed = kept;
      breaches.push(...(await restoreRefs(this.options.root, places, changed, shared)));
      const index = display(path.join(places.gitDir, "index"));
      breaches.push(
        ...(await restoreIndexFlags(this.options.root, taken.indexFlags, located.index.read(), index)),
      );
    }
    return {
      breaches,
      covered: (real) =>
        isWatched(taken.watches, real) || (checkout !== null && inCheckoutSnapshot(checkout.context, real)),
    };
  }
}
