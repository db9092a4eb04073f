/**
 * Symlinks that lead out of the run root: committed ones, ones the operator or the agent made
 * (a snapshot lists them), and the dependency folders a worktree links in from the checkout. A write
 * through one lands outside the root, where no `git status` of the root sees it; what it really
 * touches is the link's real target.
 */

import fs from "node:fs";
import path from "node:path";
import { runGit } from "../code/run-git.js";
import type { TreeSnapshot } from "../code/working-tree.js";
import { LINKED_DEPENDENCIES } from "../workspace/worktree-links.js";
import { isWithin, realPathOf } from "./write-boundary-paths.js";

/**
 * Tool caches inside a dependency folder (`node_modules/.vite` holds vitest's results, `.cache` babel's
 * and eslint's): left out of its fingerprint, so running the tests is not a breach.
 */
export const DEPENDENCY_CACHES: readonly string[] = [".cache", ".vite", ".vite-temp"];

/** True for a name directly under a dependency folder that is one of its tool caches. */
export function isDependencyCache(name: string): boolean {
  return DEPENDENCY_CACHES.includes(name);
}

const SYMLINK = 0o120000;
const TYPE = 0o170000;

/**
 * Listings of committed links by root and commit, kept as they are asked for (parallel phases ask at
 * once): a commit never changes, and every phase's boundary asks again.
 */
const committedByCommit = new Map<string, Promise<readonly string[] | null>>();
/** Roots × commits remembered (a run moves through a few commits; a long-lived worker through many). */
const COMMITTED_KEPT = 64;

async function listCommittedLinks(root: string, commit: string): Promise<readonly string[] | null> {
  let output: string;
  try {
    output = await runGit(root, ["ls-tree", "-r", "-z", commit]);
  } catch {
    return null;
  }
  const links: string[] = [];
  for (const record of output.split("\0")) {
    if (record.startsWith("120000 ")) links.push(record.slice(record.indexOf("\t") + 1));
  }
  return links;
}

/**
 * Paths (relative to the root) of the symlinks committed at `commit` below the root, listed by git once
 * per root and commit in this process. Never rejects (a listing git could not make is not kept).
 */
export async function committedLinks(root: string, commit: string | null): Promise<string[]> {
  if (commit === null) return [];
  const key = `${path.resolve(root)}\0${commit}`;
  let listing = committedByCommit.get(key);
  if (listing === undefined) {
    if (committedByCommit.size >= COMMITTED_KEPT) {
      const oldest = committedByCommit.keys().next().value;
      if (oldest !== undefined) committedByCommit.delete(oldest);
    }
    listing = listCommittedLinks(root, commit);
    committedByCommit.set(key, listing);
  }
  const links = await listing;
  if (links === null) {
    if (committedByCommit.get(key) === listing) committedByCommit.delete(key);
    return [];
  }
  return [...links];
}

/** Paths of the symlinks `git status` listed in `snapshot` (untracked or changed ones). */
export function snapshotLinks(snapshot: TreeSnapshot): string[] {
  return [...(snapshot.modes ?? [])].filter(([, mode]) => (mode & TYPE) === SYMLINK).map(([file]) => file);
}

/** The dependency links at the work tree's top (`node_modules` in a worktree), relative to `root`. */
export function dependencyLinks(root: string, topLevel: string): string[] {
  const links: string[] = [];
  for (const name of LINKED_DEPENDENCIES) {
    const link = path.join(topLevel, name);
    if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink())
      links.push(path.relative(root, link).split(path.sep).join("/"));
  }
  return links;
}

/** A link of the root and the real path a write through it touches. */
export interface LinkOut {
  link: string;
  target: string;
}

/** Each of `links` (relative to `root`) whose real target lies outside `realRoot`. Never throws. */
export function linksOut(root: string, realRoot: string, links: Iterable<string>): LinkOut[] {
  const found: LinkOut[] = [];
  for (const link of new Set(links)) {
    const target = realPathOf(path.join(root, link));
    if (!isWithin(target, realRoot)) found.push({ link, target });
  }
  return found;
}
