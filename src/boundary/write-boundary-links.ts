/**
 * Symlinks that lead out of the run root: committed ones, ones the operator or the agent made
 * (a snapshot lists them), and the dependency folders a worktree links in from the checkout. A write
 * through one lands outside the root, where no `git status` of the root sees it; what it really
 * touches is the link's real target.
 */

import fs from "node:fs";
import path from "node:path";
import { runGit } from "../code/run-git.js";
import { LINKED_DEPENDENCIES } from "../workspace/worktree-links.js";
import type { TreeEntry } from "./trees/blob-store.js";
import type { Walk } from "./trees/root-walk.js";
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

/**
 * Trees of commits by root and commit, kept as they are asked for (parallel phases ask at once): a
 * commit never changes, and every phase's boundary asks again.
 */
const treeByCommit = new Map<string, Promise<ReadonlyMap<string, TreeEntry> | null>>();
/** Roots × commits remembered (a run moves through a few commits; a long-lived worker through many). */
const TREES_KEPT = 64;

async function listTree(root: string, commit: string): Promise<ReadonlyMap<string, TreeEntry> | null> {
  let output: string;
  try {
    output = await runGit(root, ["ls-tree", "-r", "-z", commit]);
  } catch {
    return null;
  }
  const entries = new Map<string, TreeEntry>();
  for (const record of output.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const [mode, , oid] = record.slice(0, tab).split(" ");
    if (mode !== undefined && oid !== undefined) entries.set(record.slice(tab + 1), { mode, oid });
  }
  return entries;
}

/**
 * The entries (relative to `root`) of `commit` below the root, listed by git once per root and commit
 * in this process; empty for no commit. Never rejects (a listing git could not make is not kept).
 */
export async function committedTree(
  root: string,
  commit: string | null,
): Promise<ReadonlyMap<string, TreeEntry>> {
  if (commit === null) return new Map();
  const key = `${path.resolve(root)}\0${commit}`;
  let listing = treeByCommit.get(key);
  if (listing === undefined) {
    if (treeByCommit.size >= TREES_KEPT) {
      const oldest = treeByCommit.keys().next().value;
      if (oldest !== undefined) treeByCommit.delete(oldest);
    }
    listing = listTree(root, commit);
    treeByCommit.set(key, listing);
  }
  const tree = await listing;
  if (tree === null) {
    if (treeByCommit.get(key) === listing) treeByCommit.delete(key);
    return new Map();
  }
  return tree;
}

/** Paths (relative to the root) of the symlinks committed at `commit` below the root. Never rejects. */
export async function committedLinks(root: string, commit: string | null): Promise<string[]> {
  const links: string[] = [];
  for (const [file, entry] of await committedTree(root, commit))
    if (entry.mode === "120000") links.push(file);
  return links;
}

/** Paths of the symlinks a walk of the root found. */
export function walkLinks(walk: Walk): string[] {
  const links: string[] = [];
  for (const [file, entry] of walk.entries) if (entry.kind === "symlink") links.push(file);
  return links;
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
