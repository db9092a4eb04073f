import { lstatSync, readlinkSync, statSync, symlinkSync, unlinkSync } from "node:fs";
import path from "node:path";
import { gitOutcome } from "./worktree-git.js";

/**
 * Ignored dependency folders at the checkout's root that a fresh worktree lacks and that quality
 * commands need (`npm test` without `node_modules` fails). Each is symlinked, never copied: installing
 * into it from the worktree writes into the checkout's folder.
 */
export const LINKED_DEPENDENCIES: readonly string[] = ["node_modules"];

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function linkTarget(file: string): string | null {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : null;
  } catch {
    return null;
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Symlinks each of `LINKED_DEPENDENCIES` that the checkout has as an ignored directory at its root and
 * the worktree lacks. Returns the names that are links into the checkout afterwards (made now or by an
 * earlier run), which change tracking must leave out. A worktree's own folder of that name is kept.
 * Never rejects: a link that cannot be made is simply not there.
 */
export async function linkDependencies(checkoutTop: string, worktreeTop: string): Promise<string[]> {
  const linked: string[] = [];
  for (const name of LINKED_DEPENDENCIES) {
    const source = path.join(checkoutTop, name);
    const target = path.join(worktreeTop, name);
    // Relative, so the link survives the whole repository being moved.
    const relative = path.relative(worktreeTop, source);
    const current = linkTarget(target);
    if (current !== null) {
      if (path.resolve(worktreeTop, current) === source) linked.push(name);
      continue;
    }
    if (exists(target) || !isDirectory(source)) continue;
    // Only an ignored folder: a tracked one is in the worktree already.
    if (!(await gitOutcome(checkoutTop, ["check-ignore", "-q", "--", name])).ok) continue;
    try {
      symlinkSync(relative, target, "dir");
      linked.push(name);
    } catch {
      // A read-only or odd file system: the run goes on without the link.
    }
  }
  return linked;
}

/** Removes the dependency links from a worktree (real folders are left alone). Returns the names removed. Never throws. */
export function unlinkDependencies(worktreeTop: string): string[] {
  const removed: string[] = [];
  for (const name of LINKED_DEPENDENCIES) {
    const target = path.join(worktreeTop, name);
    if (linkTarget(target) === null) continue;
    try {
      unlinkSync(target);
      removed.push(name);
    } catch {
      // Left in place: git then reports it as an untracked file.
    }
  }
  return removed;
}
