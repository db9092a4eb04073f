/**
 * Folders and files a snapshot of the run root cannot see, watched by stat fingerprint around each
 * send: the repository's hooks and config, dependency folders linked into a worktree, the targets of
 * symlinks leading out of the run root. Before the send every small file's content is stored in git
 * (only what changed since the last listing); after it every change is undone and reported.
 */

import path from "node:path";
import { byTheAgent, type ToolActivity } from "../write-boundary-attribution-time.js";
import type { BoundaryBreach } from "../write-boundary-breach.js";
import { isWithin } from "../write-boundary-paths.js";
import type { BoundaryRule } from "../write-boundary-rules.js";
import type { StoreFiles } from "./dir-listing.js";
import type { BlobReader } from "./restore-paths.js";
import { diffListings, storeListings, type TreeListing, walkListing } from "./tree-listing.js";
import { restoreTreeChange } from "./tree-restore.js";

/** Files up to this size have their content stored before each send. */
export const WATCH_STORE_UP_TO_BYTES = 1024 * 1024;

/** One watched path. */
export interface Watch {
  /** Absolute real path of the folder or file; it may be absent (then creating it is the change). */
  target: string;
  rule: BoundaryRule;
  /** Past this many entries the path is not watched (the listing is truncated, never diffed). */
  maxEntries: number;
  /** Names directly under the target left out with what is below them (tool caches): neither stored nor judged. */
  skipTop?: (name: string) => boolean;
  /**
   * Other writers share it (the operator's `node_modules`): a change counts only when the send's
   * tool activity puts it on the agent (`byTheAgent`); others are left alone.
   */
  shared?: boolean;
  /**
   * Outside every root of the boundary (a link's target elsewhere): its entries are compared by
   * `lstat` alone, their content never read or stored, so a change there is reported, not restored.
   */
  statOnly?: boolean;
}

/** A watched path's listing before a send; `listing` null when it was too big to watch. */
export interface WatchCheckpoint {
  watch: Watch;
  listing: TreeListing | null;
}

/** Where watches store and read content, and the latest listing of each target (shared by a run's boundaries). */
export interface WatchStore {
  store: StoreFiles;
  read: BlobReader;
  listings: Map<string, TreeListing>;
}

/**
 * Lists each watch, then stores what the listings lack in one go (one `git hash-object` for all of
 * them; unchanged files keep the blob ids of the target's latest listing). Never rejects.
 */
export async function checkpointWatches(
  watches: readonly Watch[],
  where: WatchStore,
): Promise<WatchCheckpoint[]> {
  const taken: WatchCheckpoint[] = watches.map((watch) => {
    const listing = walkListing(watch.target, {
      maxEntries: watch.maxEntries,
      previous: where.listings.get(watch.target),
      ...(watch.skipTop ? { skipTop: watch.skipTop } : {}),
    });
    return { watch, listing: listing.truncated ? null : listing };
  });
  const listed = taken.flatMap(({ watch, listing }) => (listing ? [{ target: watch.target, listing }] : []));
  const storable = taken.flatMap(({ watch, listing }) =>
    listing && !watch.statOnly ? [{ target: watch.target, listing }] : [],
  );
  await storeListings(storable, where.store, WATCH_STORE_UP_TO_BYTES);
  for (const { target, listing } of listed) where.listings.set(target, listing);
  return taken;
}

/**
 * Diffs each watched path against its checkpoint and undoes every change (of a shared one: every
 * change `activity` puts on the agent), one breach per change, named by `display` from the absolute
 * path. Never rejects.
 */
export async function settleWatches(
  taken: readonly WatchCheckpoint[],
  read: BlobReader,
  display: (absolute: string) => string,
  activity: ToolActivity,
): Promise<BoundaryBreach[]> {
  const breaches: BoundaryBreach[] = [];
  for (const { watch, listing } of taken) {
    if (listing === null) continue;
    const now = walkListing(watch.target, {
      maxEntries: Number.POSITIVE_INFINITY,
      ...(watch.skipTop ? { skipTop: watch.skipTop } : {}),
    });
    for (const change of await diffListings(watch.target, listing, now)) {
      const absolute = change.path === "" ? watch.target : path.join(watch.target, change.path);
      if (watch.shared && !byTheAgent(activity, absolute)) continue;
      const outcome = await restoreTreeChange(watch.target, listing, change, read);
      breaches.push({ path: display(absolute), change: change.change, rule: watch.rule, ...outcome });
    }
  }
  return breaches;
}

/** True when `absolute` is a watched target or lies below one whose listing was taken (and not in a skipped name). */
export function isWatched(taken: readonly WatchCheckpoint[], absolute: string): boolean {
  return taken.some(({ watch, listing }) => {
    if (listing === null || !isWithin(absolute, watch.target)) return false;
    const top = path.relative(watch.target, absolute).split(path.sep)[0] ?? "";
    return top === "" || !watch.skipTop?.(top);
  });
}
