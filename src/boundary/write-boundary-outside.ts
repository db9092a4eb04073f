/**
 * The part of a write boundary a snapshot of the run root cannot see: files in the run root's parent
 * folder (listed shallowly, small ones stored in git before the send) and paths elsewhere, both
 * judged only when a tool call of the send names them; plus top-level files matching
 * `protected_files` that git ignores (`.env`), compared whether named or not.
 */

import fs from "node:fs";
import path from "node:path";
import { gitBlobFingerprint } from "../code/fingerprint.js";
import type { ToolCall } from "../runtimes/runtime.js";
import {
  type ListedEntry,
  listDirectory,
  type StoreFiles,
  sameAsListed,
  savedFromListing,
} from "./dir-listing.js";
import { type BlobReader, removeEmptyDirs, restorePath } from "./restore-paths.js";
import type { BoundaryBreach } from "./write-boundary-breach.js";
import {
  isWithin,
  resolveToolPath,
  toLexical,
  toolCallPaths,
  withRealPaths,
} from "./write-boundary-paths.js";

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
  const { root, store } = context;
  const parentDir = path.dirname(root);
  const startedAtMs = Date.now();
  const common = { storeUpTo: STORE_UP_TO_BYTES, store, maxStored: MAX_STORED };
  const [parent, protectedTop] = await Promise.all([
    parentDir === root
      ? Promise.resolve(null)
      : listDirectory(parentDir, {
          ...common,
          accept: (name) => name !== path.basename(root),
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

/** Null when `absolute` is as listed (same metadata, or same content and mode); else the change. */
async function changeAgainst(
  absolute: string,
  entry: ListedEntry | undefined,
): Promise<BoundaryBreach["change"] | null> {
  const stat = await fs.promises.lstat(absolute).catch(() => null);
  if (stat === null) return entry === undefined ? null : "deleted";
  if (entry === undefined) return "added";
  const target = stat.isSymbolicLink()
    ? await fs.promises.readlink(absolute).catch(() => undefined)
    : undefined;
  if (sameAsListed(entry, stat, target)) return null;
  if (entry.kind === "directory" && stat.isDirectory()) return null;
  if (entry.kind === "file" && stat.isFile() && entry.oid !== null && (stat.mode & 0o7777) === entry.mode) {
    if ((await gitBlobFingerprint(absolute, entry.oid.length === 64 ? "sha256" : "sha1")) === entry.oid)
      return null;
  }
  if (entry.kind === "symlink" && entry.target === target) return null;
  return "modified";
}

const ELSEWHERE_NOTE = "it is outside the run root's folder, where sssf keeps no copy: it cannot be restored";

/**
 * After the send: compares the protected top-level names with their listing, and judges every path the
 * send's tool calls named outside the run root. In the parent folder a created file is removed (with
 * folders it came in), a modified or deleted one restored from its stored blob; elsewhere a file
 * changed during the send is reported unrestored. Paths no tool named are never touched, except the
 * protected top-level names. `seen` holds the repo-relative paths the inside diff already judged.
 */
export async function settleOutside(
  context: OutsideContext,
  checkpoint: OutsideCheckpoint,
  calls: readonly ToolCall[],
  seen: ReadonlySet<string>,
): Promise<BoundaryBreach[]> {
  const { root, read } = context;
  const breaches: BoundaryBreach[] = [];
  const restore = async (
    absolute: string,
    entry: ListedEntry | undefined,
    display: string,
    rule: BoundaryBreach["rule"],
  ) => {
    const change = await changeAgainst(absolute, entry);
    if (change === null) return;
    const outcome = await restorePath(absolute, savedFromListing(entry), read);
    breaches.push({ path: display, change, rule, ...outcome });
  };

  if (context.store !== null) {
    const now = await fs.promises.readdir(root).catch(() => [] as string[]);
    const names = new Set([...checkpoint.protectedTop.keys(), ...now.filter(context.isProtectedTop)]);
    for (const name of [...names].sort()) {
      if (!seen.has(name))
        await restore(path.join(root, name), checkpoint.protectedTop.get(name), name, "protected");
    }
  }

  const parentDir = path.dirname(root);
  const roots = withRealPaths([root]);
  const own = withRealPaths(context.ownPaths);
  const named = new Set<string>();
  for (const call of calls) {
    for (const raw of toolCallPaths(call.args)) named.add(toLexical(resolveToolPath(raw, root), root));
  }
  for (const absolute of [...named].sort()) {
    if (roots.some((r) => isWithin(absolute, r)) || own.some((p) => isWithin(absolute, p))) continue;
    const display = path.relative(root, absolute).split(path.sep).join("/");
    const top =
      checkpoint.parent !== null && isWithin(absolute, parentDir) && absolute !== parentDir
        ? (path.relative(parentDir, absolute).split(path.sep)[0] ?? "")
        : "";
    if (top !== "" && path.dirname(absolute) === parentDir) {
      await restore(absolute, checkpoint.parent?.get(top), display, "outside_root");
    } else if (top !== "" && !checkpoint.parent?.has(top)) {
      // Its whole folder is new: everything up to the parent came with the breach.
      const change = await changeAgainst(absolute, undefined);
      if (change === null) continue;
      const outcome = await restorePath(absolute, { kind: "absent" }, read);
      await removeEmptyDirs([path.dirname(absolute)], parentDir, () => true);
      breaches.push({ path: display, change, rule: "outside_root", ...outcome });
    } else {
      const stat = await fs.promises.lstat(absolute).catch(() => null);
      if (stat === null || stat.isDirectory() || stat.ctimeMs < checkpoint.startedAtMs) continue;
      breaches.push({
        path: absolute,
        change: "modified",
        rule: "outside_root",
        restored: false,
        note: ELSEWHERE_NOTE,
      });
    }
  }
  return breaches;
}
