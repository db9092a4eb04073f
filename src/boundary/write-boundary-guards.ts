/**
 * What a write boundary guards beyond the run root's own snapshot: the repository's hooks and config,
 * the folders and files symlinks lead to out of the root (the dependency folders a worktree links in
 * among them), and, in a worktree run, the operator's checkout. Located once per boundary; taken
 * before and settled after every send, inside the run's turn-taking.
 */

import path from "node:path";
import type { TreeSnapshot } from "../code/working-tree.js";
import { LINKED_DEPENDENCIES } from "../workspace/worktree-links.js";
import type { StoreFiles } from "./dir-listing.js";
import type { BlobReader } from "./restore-paths.js";
import type { TreeListing } from "./tree-listing.js";
import {
  checkpointWatches,
  isWatched,
  settleWatches,
  type Watch,
  type WatchCheckpoint,
} from "./watched-trees.js";
import type { ToolActivity } from "./write-boundary-attribution-time.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import {
  type CheckoutCheckpoint,
  type CheckoutContext,
  checkpointCheckout,
  ignoredInCheckout,
  inCheckoutSnapshot,
  settleCheckout,
} from "./write-boundary-checkout.js";
import { type GitPlaces, gitGuarded, locateGitPlaces, MAX_HOOK_ENTRIES } from "./write-boundary-git-dir.js";
import {
  committedLinks,
  dependencyLinks,
  isDependencyCache,
  linksOut,
  snapshotLinks,
} from "./write-boundary-links.js";
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
  isProtectedTop: (name: string) => boolean;
  /** Blob ids this boundary stored already. */
  stored: Set<string>;
  /** The latest listing of each watched path, shared by the run's boundaries. */
  listings: Map<string, TreeListing>;
  /** Absolute paths sssf writes while the agent runs (the session directory). */
  ownPaths: readonly string[];
}

interface Located {
  places: GitPlaces;
  checkout: Omit<CheckoutContext, "exclude"> | null;
  store: StoreFiles;
  read: BlobReader;
}

/** The guards' state before one send. */
export interface GuardCheckpoint {
  watches: WatchCheckpoint[];
  checkout: { context: CheckoutContext; checkpoint: CheckoutCheckpoint } | null;
}

/** What settling the guards found, and what the boundary's named-path check must leave to them. */
export interface GuardSettlement {
  breaches: BoundaryBreach[];
  /** True for a real path a watch or the checkout's snapshot judged. */
  covered: (real: string) => boolean;
}

const NONE: GuardCheckpoint = { watches: [], checkout: null };

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
            isProtectedTop: this.options.isProtectedTop,
            store: this.blobs.store(checkoutTop),
            read: this.blobs.read(checkoutTop),
          };
    this.near = [path.dirname(realRoot), places.commonDir, ...(checkoutTop ? [checkoutTop] : [])];
    return { places, checkout, store: this.blobs.store(root), read: this.blobs.read(root) };
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

  /** The real targets outside the root of the links the root holds in `snapshot` that a watch may cover. */
  async linkTargets(snapshot: TreeSnapshot): Promise<string[]> {
    const located = await this.located;
    if (!located) return [];
    const checkout = located.checkout
      ? { ...located.checkout, exclude: this.checkoutExclude(located.checkout.top) }
      : null;
    return linksOut(this.options.root, this.options.realRoot, snapshotLinks(snapshot))
      .map((out) => out.target)
      .filter((target) => this.safeTarget(target, located.places, checkout));
  }

  /** The committed symlinks of the root (listed once per commit) and those `git status` lists. */
  private async links(before: TreeSnapshot): Promise<string[]> {
    const committed = await committedLinks(this.options.root, before.headCommit ?? null);
    return [...committed, ...snapshotLinks(before)];
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
   * The watches of the targets of `links` (the committed symlinks, and those `git status` lists)
   * that no other watch, and not the checkout's snapshot, covers. Never rejects.
   */
  private async linkWatches(
    located: Located,
    links: readonly string[],
    checkout: CheckoutContext | null,
    watched: readonly WatchCheckpoint[],
  ): Promise<Watch[]> {
    const targets = linksOut(this.options.root, this.options.realRoot, links)
      .map((out) => out.target)
      .filter(
        (target) =>
          this.safeTarget(target, located.places, checkout) &&
          !watched.some(({ watch }) => isWithin(target, watch.target) || isWithin(watch.target, target)),
      );
    const inCheckout = checkout ? targets.filter((target) => inCheckoutSnapshot(checkout, target)) : [];
    const ignored = checkout ? await ignoredInCheckout(checkout, inCheckout) : new Set<string>();
    const watches: Watch[] = [];
    // Outermost first: a target below one already watched is watched by it.
    for (const target of [...new Set(targets)].sort((a, b) => a.length - b.length)) {
      if (inCheckout.includes(target) && !ignored.has(target)) continue;
      if (watches.some((outer) => isWithin(target, outer.target))) continue;
      watches.push({ target, rule: "outside_root", maxEntries: MAX_LINK_TARGET_ENTRIES });
    }
    return watches;
  }

  /**
   * Takes the guards' state before a send. `before` is the run root's snapshot, still being taken:
   * the checkout's `git status` and the stat walks run meanwhile. Rejects when the checkout's
   * `git status` fails.
   */
  async checkpoint(before: Promise<TreeSnapshot>): Promise<GuardCheckpoint> {
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
    // The committed links are listed (git ls-tree, once per commit) while the base watches are walked.
    const links = before.then((snapshot) => this.links(snapshot));
    links.catch(() => undefined); // awaited below
    const base = await checkpointWatches(this.baseWatches(located, checkout), where);
    const linkWatches = await this.linkWatches(located, await links, checkout, base);
    const taken = [...base, ...(await checkpointWatches(linkWatches, where))];
    const checkpoint = await checkoutTaking;
    this.lastCheckout = checkpoint;
    return { watches: taken, checkout: checkout && checkpoint ? { context: checkout, checkpoint } : null };
  }

  private checkoutExclude(top: string): string[] {
    const exclude = this.options.checkoutExclude(top);
    const root = path.relative(top, this.options.realRoot).split(path.sep).join("/");
    if (isWithin(this.options.realRoot, top) && root !== "") exclude.push(root);
    return exclude;
  }

  /**
   * Undoes every change the guards see since `taken` (in what other writers share, the checkout and its
   * dependency folders, only what the send's tool calls could have done), and says what they covered.
   * Rejects only when the checkout's `git status` fails.
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
    const inCheckout = checkout
      ? [...activity.named].filter((real) => inCheckoutSnapshot(checkout.context, real))
      : [];
    const ignored = checkout ? await ignoredInCheckout(checkout.context, inCheckout) : new Set<string>();
    return {
      breaches,
      covered: (real) =>
        isWatched(taken.watches, real) ||
        (checkout !== null && inCheckoutSnapshot(checkout.context, real) && !ignored.has(real)),
    };
  }
}
