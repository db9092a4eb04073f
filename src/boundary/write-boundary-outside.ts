/**
 * The part of a write boundary a snapshot of the run root cannot see: files in the run root's parent
 * folder (listed shallowly, small ones stored in git before the send) and paths elsewhere, both
 * judged only when a tool call of the send names them; plus top-level files matching
 * `protected_files` that git ignores (`.env`), compared whether named or not.
 */

import fs from "node:fs";
import path from "node:path";
import {
  changeSinceListing,
  type ListedEntry,
  listDirectory,
  type StoreFiles,
  savedFromListing,
} from "./dir-listing.js";
import { type BlobReader, removeEmptyDirs, restorePath } from "./restore-paths.js";
import { walkListing } from "./tree-listing.js";
import { type BoundaryBreach, type KeptCopy, withKeptCopy } from "./write-boundary-breach.js";
import { isWithin, withRealPaths } from "./write-boundary-paths.js";

/** Files up to this size have their content stored before each send. */
const STORE_UP_TO_BYTES = 1024 * 1024;
/** At most this many files of one folder are stored per send. */
const MAX_STORED = 2000;

/** Lists of the run root's parent folder and of its protected top-level names, before a send. */
export interface OutsideCheckpoint {
  parent: Map<string, ListedEntry> | null;
  protectedTop: Map<string, ListedEntry>;
  startedAtMs: number;
}

/** What the outside part of one boundary works with. */
export interface OutsideContext {
  root: string;
  /** The run root's real path: tool paths and link targets are compared as real paths. */
  realRoot: string;
  /** Top-level names matching `protected_files`: listed in a git work tree, where ignored ones escape the snapshot. */
  isProtectedTop: (name: string) => boolean;
  store: StoreFiles | null;
  read: BlobReader;
  /** Absolute paths always allowed: the run's session directory. */
  ownPaths: readonly string[];
}

/**
 * Lists the parent folder (all but the run root) and the protected top-level names; files unchanged
 * since `previous` keep their stored blob without being read again. Never rejects.
 */
export async function checkpointOutside(
  context: OutsideContext,
  previous: OutsideCheckpoint | null,
): Promise<OutsideCheckpoint> {
  const { root, realRoot, store } = context;
  const parentDir = path.dirname(realRoot);
  const startedAtMs = Date.now();
  const common = { storeUpTo: STORE_UP_TO_BYTES, store, maxStored: MAX_STORED };
  const [parent, protectedTop] = await Promise.all([
    parentDir === realRoot
      ? Promise.resolve(null)
      : listDirectory(parentDir, {
          ...common,
          accept: (name) => name !== path.basename(realRoot),
          ...(previous?.parent ? { previous: previous.parent } : {}),
        }),
    store === null
      ? Promise.resolve(new Map<string, ListedEntry>())
      : listDirectory(root, {
          ...common,
          accept: context.isProtectedTop,
          ...(previous ? { previous: previous.protectedTop } : {}),
        }),
  ]);
  return { parent, protectedTop, startedAtMs };
}

/**
 * Compares the names of `dir` that `accept` takes with their `listing` (names in `seen` excepted) and
 * puts back each one that changed (and that `theAgents` puts on the agent), as one breach named
 * `display(name)` breaking `rule`. Never rejects.
 */
export async function settleListedNames(
  dir: string,
  listing: ReadonlyMap<string, ListedEntry>,
  options: {
    accept: (name: string) => boolean;
    seen: ReadonlySet<string>;
    rule: BoundaryBreach["rule"];
    display: (name: string) => string;
    read: BlobReader;
    /** False for a change someone other than the agent made (default: every change is the agent's). */
    theAgents?: (absolute: string) => boolean;
    /** Keeps what an added or modified file holds before it is put back: where it went, or null. */
    keep?: (absolute: string) => Promise<KeptCopy | null>;
  },
): Promise<BoundaryBreach[]> {
  const breaches: BoundaryBreach[] = [];
  // The callback form: a send that changed nothing here does not load Node's fs/promises for it.
  const now = await new Promise<string[]>((resolve) =>
    fs.readdir(dir, (error, names) => resolve(error ? [] : names)),
  );
  const names = new Set([...listing.keys(), ...now.filter(options.accept)]);
  for (const name of [...names].sort()) {
    if (options.seen.has(name)) continue;
    const absolute = path.join(dir, name);
    const change = await changeSinceListing(absolute, listing.get(name));
    if (change === null || options.theAgents?.(absolute) === false) continue;
    const kept =
      options.keep && (change === "added" || change === "modified") ? await options.keep(absolute) : null;
    const outcome = await restorePath(absolute, savedFromListing(listing.get(name)), options.read);
    breaches.push({
      path: options.display(name),
      change,
      rule: options.rule,
      ...withKeptCopy(outcome, kept),
    });
  }
  return breaches;
}

const ELSEWHERE_NOTE = "it is outside the run root's folder, where sssf keeps no copy: it cannot be restored";
/** Most entries of a link target folder searched for files changed during the send. */
const MAX_SEARCHED = 20_000;

/** What a settle of the outside part is told besides the checkpoint. */
export interface OutsideSettle {
  /** Real absolute paths the send's tool calls named. */
  named: ReadonlySet<string>;
  /** Repo-relative paths the inside diff already judged. */
  seen: ReadonlySet<string>;
  /** Real paths of the targets of symlinks the root holds after the send: judged like named paths. */
  linkTargets: readonly string[];
  /** True for a real path another part of the boundary covers (a snapshot, a watch): not judged here. */
  covered: (real: string) => boolean;
}

/**
 * After the send: compares the protected top-level names with their listing, and judges every real path
 * the send's tool calls named, and every symlink target, outside the run root and what `covered` says
 * the boundary watches anyway. In the parent folder a created file is removed (with folders it came
 * in), a modified or deleted one restored from its stored blob; elsewhere a file changed during the
 * send (for a folder reached through a link: each file below it) is reported unrestored. Paths no
 * tool named and no link leads to are never touched, except the protected top-level names.
 */
export async function settleOutside(
  context: OutsideContext,
  checkpoint: OutsideCheckpoint,
  settle: OutsideSettle,
): Promise<BoundaryBreach[]> {
  const { root, realRoot, read } = context;
  const breaches: BoundaryBreach[] = [];
  if (context.store !== null) {
    breaches.push(
      ...(await settleListedNames(root, checkpoint.protectedTop, {
        accept: context.isProtectedTop,
        seen: settle.seen,
        rule: "protected",
        display: (name) => name,
        read,
      })),
    );
  }

  const parentDir = path.dirname(realRoot);
  const own = withRealPaths(context.ownPaths);
  const linked = new Set(settle.linkTargets);
  const named = new Set<string>([...linked, ...settle.named]);
  for (const absolute of [...named].sort()) {
    if (isWithin(absolute, realRoot) || own.some((p) => isWithin(absolute, p)) || settle.covered(absolute))
      continue;
    const display = path.relative(realRoot, absolute).split(path.sep).join("/");
    const top =
      checkpoint.parent !== null && isWithin(absolute, parentDir) && absolute !== parentDir
        ? (path.relative(parentDir, absolute).split(path.sep)[0] ?? "")
        : "";
    if (top !== "" && path.dirname(absolute) === parentDir) {
      const entry = checkpoint.parent?.get(top);
      const change = await changeSinceListing(absolute, entry);
      if (change === null) continue;
      const outcome = await restorePath(absolute, savedFromListing(entry), read);
      breaches.push({ path: display, change, rule: "outside_root", ...outcome });
    } else if (top !== "" && !checkpoint.parent?.has(top)) {
      // Its whole folder is new: everything up to the parent came with the breach.
      const change = await changeSinceListing(absolute, undefined);
      if (change === null) continue;
      const outcome = await restorePath(absolute, { kind: "absent" }, read);
      await removeEmptyDirs([path.dirname(absolute)], parentDir, () => true);
      breaches.push({ path: display, change, rule: "outside_root", ...outcome });
    } else {
      breaches.push(...changedElsewhere(absolute, checkpoint.startedAtMs, linked.has(absolute)));
    }
  }
  return breaches;
}

/**
 * `absolute` when it is a file whose status changed since `sinceMs`, reported unrestored; for a link's
 * target (`below`), every such file below it too (a named folder is only read: tools name folders they list).
 */
function changedElsewhere(absolute: string, sinceMs: number, below: boolean): BoundaryBreach[] {
  const listing = walkListing(absolute, { maxEntries: below ? MAX_SEARCHED : 1 });
  const changed: BoundaryBreach[] = [];
  for (const [relative, entry] of listing.entries) {
    if (entry.kind === "directory" || entry.ctimeMs < sinceMs) continue;
    const file = relative === "" ? absolute : path.join(absolute, relative);
    changed.push({
      path: file,
      change: "modified",
      rule: "outside_root",
      restored: false,
      note: ELSEWHERE_NOTE,
    });
  }
  return changed;
}
