/**
 * The part of a write boundary a walk of the run root cannot see, for an agent outside the OS
 * sandbox: files in the run root's parent folder (listed shallowly by `lstat`, their content never
 * read or stored) and paths elsewhere, both judged only when a tool call of the send names them or a
 * link of the root leads there. A file created there is removed; a modified or deleted one is
 * reported, not restored: sssf keeps no copy of anything outside the repository.
 */

import path from "node:path";
import {
  changeSinceListing,
  type ListedEntry,
  listDirectory,
  savedFromListing,
} from "./trees/dir-listing.js";
import { type BlobReader, removeEmptyDirs, restorePath } from "./trees/restore-paths.js";
import { walkListing } from "./trees/tree-listing.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import { isWithin, withRealPaths } from "./write-boundary-paths.js";

/** The listing of the run root's parent folder before a send. */
export interface OutsideCheckpoint {
  parent: Map<string, ListedEntry> | null;
  startedAtMs: number;
}

const NOT_KEPT =
  "it is outside the repository, where sssf keeps no copy of a file's content: it cannot be restored";

/** What the outside part of one boundary works with. */
export interface OutsideContext {
  root: string;
  /** The run root's real path: tool paths and link targets are compared as real paths. */
  realRoot: string;
  read: BlobReader;
  /** Absolute paths always allowed: the run's session directory. */
  ownPaths: readonly string[];
}

/**
 * Lists the parent folder (all but the run root) by name, kind and `lstat`; nothing is read or
 * stored. A folder unchanged since `previous` keeps its names. Never rejects.
 */
export async function checkpointOutside(
  context: OutsideContext,
  previous: OutsideCheckpoint | null,
): Promise<OutsideCheckpoint> {
  const { realRoot } = context;
  const parentDir = path.dirname(realRoot);
  const startedAtMs = Date.now();
  const parent =
    parentDir === realRoot
      ? null
      : listDirectory(parentDir, {
          accept: (name) => name !== path.basename(realRoot),
          ...(previous?.parent ? { previous: previous.parent } : {}),
        });
  return { parent, startedAtMs };
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
  const { realRoot, read } = context;
  const breaches: BoundaryBreach[] = [];

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
      const saved = savedFromListing(entry);
      const outcome =
        saved.kind === "file"
          ? { restored: false, note: NOT_KEPT }
          : await restorePath(absolute, saved, read);
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
