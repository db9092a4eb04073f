/**
 * Puts one change of a watched tree back the way its listing saw it: a new file or folder removed
 * (a folder with everything in it: nothing below it was there before), a file rewritten from its
 * stored blob with its mode and mtime, a link re-made, a vanished folder re-made with its whole
 * content, a mode set back.
 */

import fs from "node:fs";
import path from "node:path";
import { type BlobReader, type RestoreOutcome, restorePath, type SavedPath } from "./restore-paths.js";
import type { TreeChange, TreeEntry, TreeListing } from "./tree-listing.js";

function savedOf(entry: TreeEntry): SavedPath {
  if (entry.kind === "file") return { kind: "file", oid: entry.oid, mode: entry.mode };
  if (entry.kind === "symlink" && entry.target !== undefined)
    return { kind: "symlink", target: entry.target };
  return { kind: "other", what: entry.kind === "directory" ? "folder" : "special file" };
}

const NO_COPY =
  "sssf kept no copy of its content (outside the repository, bigger than the size it stores, or unreadable before the send)";

/** Writes back one file or link from `entry`, keeping its mtime; never rejects. */
async function restoreEntry(absolute: string, entry: TreeEntry, read: BlobReader): Promise<RestoreOutcome> {
  if (entry.kind === "file" && entry.oid === null) return { restored: false, note: NO_COPY };
  const outcome = await restorePath(absolute, savedOf(entry), read);
  if (outcome.restored && entry.kind === "file") {
    const time = entry.mtimeMs / 1000;
    await fs.promises.utimes(absolute, time, time).catch(() => undefined);
  }
  return outcome;
}

async function makeDir(absolute: string, mode: number): Promise<void> {
  await fs.promises.mkdir(absolute, { recursive: true });
  await fs.promises.chmod(absolute, mode);
}

/** Re-makes the folder at `relative` and everything `before` listed below it. */
async function restoreFolder(
  target: string,
  relative: string,
  before: TreeListing,
  read: BlobReader,
): Promise<RestoreOutcome> {
  const absolute = (name: string) => (name === "" ? target : path.join(target, name));
  const below = [...before.entries]
    .filter(([name]) => name === relative || relative === "" || name.startsWith(`${relative}/`))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const failed: string[] = [];
  const dirs: [string, number][] = [];
  for (const [name, entry] of below) {
    if (entry.kind === "directory") {
      // Writable while its content comes back; its own mode is set once everything is in.
      await makeDir(absolute(name), 0o700).catch(() => failed.push(name));
      dirs.push([name, entry.mode]);
    } else if (!(await restoreEntry(absolute(name), entry, read)).restored) failed.push(name);
  }
  for (const [name, mode] of dirs.reverse()) await fs.promises.chmod(absolute(name), mode).catch(() => {});
  if (failed.length === 0) return { restored: true, note: `a folder of ${below.length} entries, put back` };
  const shown = failed.slice(0, 5).join(", ");
  const more = failed.length > 5 ? ` and ${failed.length - 5} more` : "";
  return {
    restored: false,
    note: `${failed.length} of its ${below.length} entries could not be put back: ${shown}${more}`,
  };
}

/**
 * Undoes `change` of the tree at `target` (absolute) against its `before` listing; never rejects,
 * failures come back as `{ restored: false, note }`.
 */
export async function restoreTreeChange(
  target: string,
  before: TreeListing,
  change: TreeChange,
  read: BlobReader,
): Promise<RestoreOutcome> {
  const absolute = change.path === "" ? target : path.join(target, change.path);
  const was = before.entries.get(change.path);
  try {
    if (change.change === "added" || change.what === "kind") {
      const stat = await fs.promises.lstat(absolute).catch(() => null);
      if (stat?.isDirectory()) await fs.promises.rm(absolute, { recursive: true, force: true });
      else if (stat) await fs.promises.unlink(absolute);
      if (was === undefined) {
        return stat?.isDirectory()
          ? { restored: true, note: "a new folder, removed with everything in it" }
          : { restored: true };
      }
    }
    if (was === undefined) return { restored: true };
    if (was.kind === "directory") {
      if (change.what === "mode") {
        const note = modeNote(was.mode, absolute);
        await fs.promises.chmod(absolute, was.mode);
        return { restored: true, note };
      }
      return await restoreFolder(target, change.path, before, read);
    }
    if (change.what === "mode" && was.kind === "file") {
      const note = modeNote(was.mode, absolute);
      await fs.promises.chmod(absolute, was.mode);
      return { restored: true, note };
    }
    return await restoreEntry(absolute, was, read);
  } catch (error) {
    return { restored: false, note: (error as Error).message };
  }
}

/** `its mode changed from 644 to 755`, read before the mode is set back. */
function modeNote(was: number, absolute: string): string {
  let now = "another mode";
  try {
    now = (fs.lstatSync(absolute).mode & 0o7777).toString(8);
  } catch {
    // vanished: say only what it was
  }
  return `its mode changed from ${was.toString(8)} to ${now}`;
}
