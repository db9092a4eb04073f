/**
 * The operator's checkout seen from a run in its own worktree. The checkout is outside the run root,
 * yet one `../../../../README.md` (or a `cd` in a shell) away; nothing in it is the agent's to write.
 * So it is walked like the run root (src/boundary/trees/root-walk.ts: every file, ignored ones included,
 * its content stored where the commit lacks it) with every path outside the boundary; after the send
 * every change that is the agent's is put back exactly, what it held kept as a blob (the operator and
 * other runs write there too: see `settleCheckout`). Walk and settle never see a merge half done:
 * sssf's merges wait for them and they for the merges (`withCheckoutRead`), and both wait for a git
 * command of the operator's to release the index.
 */

import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { blobId } from "../code/fingerprint.js";
import { readRegularFile } from "../code/safe-read.js";
import { withCheckoutRead } from "../workspace/checkout-lock.js";
import type { StoreFiles } from "./trees/dir-listing.js";
import type { BlobReader } from "./trees/restore-paths.js";
import { rootHead } from "./trees/root-head.js";
import { entryAt, type Walk } from "./trees/root-walk.js";
import { byTheAgent, type ToolActivity } from "./write-boundary-attribution-time.js";
import type { BoundaryBreach, KeptCopy } from "./write-boundary-breach.js";
import {
  checkpointInside,
  type InsideCheckpoint,
  type RootHead,
  settleInside,
} from "./write-boundary-inside.js";
import { committedTree } from "./write-boundary-links.js";
import { isWithin } from "./write-boundary-paths.js";
import type { BoundaryJudge } from "./write-boundary-rules.js";

/**
 * The operator's dirty files bigger than this are not copied into git before each send (an untracked
 * video or build output would otherwise be): a change to one is reported, not restored.
 */
export const CHECKOUT_STORE_UP_TO_BYTES = 64 * 1024 * 1024;

/** Everything in the checkout is outside the run root (every dirty path is stored before a send). */
const OUTSIDE: BoundaryJudge = () => "outside_root";

/** The operator's checkout as a boundary guards it. */
export interface CheckoutContext {
  /** Real top level of the checkout. */
  top: string;
  /** The checkout's common git dir (where sssf's merges and the boundaries take turns) and own git dir. */
  commonDir: string;
  gitDir: string;
  /** Checkout-relative prefixes sssf owns there (sessions, database, the worktrees): never snapshotted. */
  exclude: string[];
  store: StoreFiles;
  read: BlobReader;
}

/** The checkout before a send. */
export interface CheckoutCheckpoint {
  inside: InsideCheckpoint;
  exclude: string[];
}

/**
 * Walks the checkout, storing every file's content the commit lacks (`stored`: blob ids this boundary
 * already wrote; `previous`: the last checkpoint, whose unchanged files are not read again). Never rejects.
 */
export async function checkpointCheckout(
  context: CheckoutContext,
  stored: Set<string>,
  previous: CheckoutCheckpoint | null,
): Promise<CheckoutCheckpoint> {
  return withCheckoutRead(context.commonDir, async () => {
    await gitOperationEnded(context);
    const inside = await checkpointInside({
      root: context.top,
      exclude: context.exclude,
      judge: OUTSIDE,
      stored,
      storeUpTo: CHECKOUT_STORE_UP_TO_BYTES,
      previous: previous?.inside.before ?? null,
      head: await rootHead(context.top),
    });
    return { inside, exclude: context.exclude };
  });
}

/** How long a snapshot waits for a git command of the operator's to release the checkout's index. */
export const INDEX_LOCK_WAIT_MS = 2000;

/**
 * Waits (up to `INDEX_LOCK_WAIT_MS`) while a git command holds the checkout's `index.lock`: a
 * checkout, pull or merge the operator runs there rewrites files before it moves HEAD, and a snapshot
 * taken meanwhile would see its files as changes under the old HEAD. A lock left by a git that
 * crashed is waited for once per snapshot, then the snapshot goes on.
 */
async function gitOperationEnded(context: CheckoutContext): Promise<void> {
  const lock = path.join(context.gitDir, "index.lock");
  const until = Date.now() + INDEX_LOCK_WAIT_MS;
  while (existsSync(lock) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * Puts back every change made in the checkout since `checkpoint` that is the agent's, one breach each,
 * named by `display` from the absolute path. The checkout is shared: a path that was clean before and
 * matches the checkout's HEAD after, when HEAD moved (a merge, pull or checkout there), is git's doing;
 * any other change is the agent's only when `activity` says so (named by a tool call, or made while one
 * ran). What is not the agent's is left as it is.
 */
export async function settleCheckout(
  context: CheckoutContext,
  checkpoint: CheckoutCheckpoint,
  display: (absolute: string) => string,
  activity: ToolActivity,
): Promise<BoundaryBreach[]> {
  const { before, head } = checkpoint.inside;
  const inner = await withCheckoutRead(context.commonDir, async () => {
    await gitOperationEnded(context);
    const now = await rootHead(context.top);
    const moved = head !== null && now !== null && head.commit !== now.commit;
    const judge: BoundaryJudge = (file) => {
      if (moved && now !== null && gitsDoing(context.top, file, before, head, now)) return null;
      return byTheAgent(activity, path.join(context.top, file)) ? "outside_root" : null;
    };
    return settleInside(checkpoint.inside, checkpoint.exclude, judge, undefined, (files) =>
      keepCurrent(context, files),
    );
  });
  return inner.map((breach) => ({
    ...breach,
    path: display(path.join(context.top, breach.path)),
    ...(breach.previousPath ? { previousPath: display(path.join(context.top, breach.previousPath)) } : {}),
  }));
}

/**
 * True when `file` was as the old commit had it and is as the new one has it: HEAD moved (a merge,
 * pull or checkout in the checkout) and this path moved with it.
 */
function gitsDoing(top: string, file: string, before: Walk, head: RootHead, now: RootHead): boolean {
  const was = before.entries.get(file);
  const wasClean =
    was === undefined ? !head.tree.has(file) : was.oid !== null && was.oid === head.tree.get(file)?.oid;
  if (!wasClean) return false;
  const entry = entryAt(path.join(top, file));
  if (entry === null) return !now.tree.has(file);
  if (entry.kind !== "file") return false;
  const content = readRegularFile(path.join(top, file), entry);
  return content !== null && blobId(now.format, content) === now.tree.get(file)?.oid;
}

/**
 * True when the checkout's files are what commit `now` has wherever it differs from `was`: a commit,
 * merge or pull made in the checkout moved its branch there (two `git ls-tree`, kept per commit).
 * Never rejects.
 */
export async function checkoutFollowed(
  top: string,
  was: string | null,
  now: string | null,
): Promise<boolean> {
  if (was === null || now === null || was === now) return was === now;
  const [from, to] = await Promise.all([committedTree(top, was), committedTree(top, now)]);
  if (to.size === 0) return false;
  for (const file of new Set([...from.keys(), ...to.keys()])) {
    const entry = to.get(file);
    if (from.get(file)?.oid === entry?.oid) continue;
    const here = entryAt(path.join(top, file));
    if (entry === undefined) {
      if (here !== null) return false;
      continue;
    }
    if (here?.kind !== "file") return false;
    const content = readRegularFile(path.join(top, file), here);
    if (content === null || blobId(entry.oid.length === 64 ? "sha256" : "sha1", content) !== entry.oid)
      return false;
  }
  return true;
}

/** The folder of the checkout's common git dir that files too big to copy are moved into. */
export const KEPT_FILES_NAME = "sssf-kept";

/**
 * Keeps the current bytes of the regular files among `files` (checkout-relative) before they are
 * undone: a change attributed to the agent by its timing alone may have been the operator's edit,
 * which must never be lost. Files up to `CHECKOUT_STORE_UP_TO_BYTES` are stored as blobs in the
 * checkout's repository; a bigger one (copying could take minutes) is moved, whole, into
 * `<common git dir>/sssf-kept/`. Resolves to where each went, null for a file it could not keep
 * (left as it is). Never rejects.
 */
async function keepCurrent(
  context: CheckoutContext,
  files: readonly string[],
): Promise<Map<string, KeptCopy | null>> {
  const kept = new Map<string, KeptCopy | null>();
  const small: string[] = [];
  for (const file of files) {
    const absolute = path.join(context.top, file);
    let size: number | null = null;
    try {
      const stat = lstatSync(absolute, { throwIfNoEntry: false });
      if (stat?.isFile()) size = stat.size;
    } catch {
      // unreadable: git could not store it either
    }
    if (size === null) continue;
    if (size <= CHECKOUT_STORE_UP_TO_BYTES) small.push(file);
    else kept.set(file, moveAside(context, file));
  }
  if (small.length === 0) return kept;
  const stored = await context.store(small.map((file) => path.join(context.top, file)));
  for (const file of small) {
    const blob = stored.get(path.join(context.top, file));
    kept.set(file, blob ? { blob } : null);
  }
  return kept;
}

/** Moves `file` into the kept-files folder under a name of its own; null when it cannot. */
function moveAside(context: CheckoutContext, file: string): KeptCopy | null {
  const folder = path.join(context.commonDir, KEPT_FILES_NAME);
  const target = path.join(
    folder,
    `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}-${path.basename(file)}`,
  );
  try {
    mkdirSync(folder, { recursive: true });
    renameSync(path.join(context.top, file), target);
    return { movedTo: target };
  } catch {
    return null; // another file system, or no room: the file stays where it is
  }
}

/** True when `real` lies where the checkout's snapshot looks: inside it, not excluded, not in `.git`. */
export function inCheckoutSnapshot(context: CheckoutContext, real: string): boolean {
  if (!isWithin(real, context.top) || isWithin(real, path.join(context.top, ".git"))) return false;
  const relative = path.relative(context.top, real).split(path.sep).join("/");
  return !context.exclude.some((prefix) => relative === prefix || relative.startsWith(`${prefix}/`));
}
