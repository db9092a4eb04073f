/**
 * The parts of a repository's git directory that run code or redirect git: the hooks folder and the
 * config files (`core.hooksPath`, filters, aliases, `core.fsmonitor`…). They lie outside every work
 * tree, so no snapshot sees them; sssf watches them around every send instead and puts back whatever
 * changed. From a linked worktree they are the common git dir's, shared with the operator's checkout.
 */

import fs from "node:fs";
import path from "node:path";
import { repoFacts } from "../code/git-facts.js";
import { isWithin, realPathOf } from "./write-boundary-paths.js";

/** Where a run root sits in git, as the boundary's guards need it. */
export interface GitPlaces {
  /** Real path of the work tree's top level. */
  topLevel: string;
  /** Real path of the repository's common git dir (the checkout's `.git`). */
  commonDir: string;
  /** Real path of this work tree's own git dir (equal to `commonDir` outside a linked worktree). */
  gitDir: string;
  /** Real path of the hooks git runs (`core.hooksPath` or `<commonDir>/hooks`). */
  hooksDir: string;
}

/** Most entries of a hooks folder that are watched (hooks folders hold a few dozen). */
export const MAX_HOOK_ENTRIES = 10_000;

/** Where `root` sits in git (the process's `repoFacts`: one `git rev-parse` per directory); null outside a work tree. Never rejects. */
export async function locateGitPlaces(root: string): Promise<GitPlaces | null> {
  const facts = await repoFacts(root);
  if (facts === null) return null;
  const real = (p: string) => realPathOf(path.resolve(root, p));
  return {
    topLevel: real(facts.topLevel),
    commonDir: real(facts.commonDir),
    gitDir: real(facts.gitDir),
    hooksDir: real(facts.hooksDir),
  };
}

/** What the git guard watches: folders (whole trees) and single files, all absolute real paths. */
export interface GitGuarded {
  folders: string[];
  files: string[];
}

/**
 * The paths to guard for a run root in `places`, and for the operator's checkout `checkoutTop` (real,
 * or null in place): the common dir's `hooks/`, `info/`, `objects/info/`, `remotes/`, `branches/`,
 * `config`, `config.worktree` and `shallow`; a linked worktree's own `config.worktree`, `commondir`, `gitdir` and its
 * `.git` file; and the hooks git really runs when `core.hooksPath` points
 * outside every work tree (a hooks folder inside one is the project's files, under its `writes`).
 */
export function gitGuarded(places: GitPlaces, checkoutTop: string | null): GitGuarded {
  // info/ holds exclude and attributes (what git ignores, which filters run); objects/info/ alternates;
  // remotes/ and branches/ are remotes defined the old way (where a push or fetch goes).
  const folders = [
    path.join(places.commonDir, "hooks"),
    path.join(places.commonDir, "info"),
    path.join(places.commonDir, "objects", "info"),
    path.join(places.commonDir, "remotes"),
    path.join(places.commonDir, "branches"),
  ];
  const insideWorkTree =
    !isWithin(places.hooksDir, places.commonDir) &&
    [places.topLevel, ...(checkoutTop ? [checkoutTop] : [])].some((top) => isWithin(places.hooksDir, top));
  if (!folders.includes(places.hooksDir) && !insideWorkTree) folders.push(places.hooksDir);
  const files = [
    path.join(places.commonDir, "config"),
    path.join(places.commonDir, "config.worktree"),
    path.join(places.commonDir, "shallow"),
  ];
  if (places.gitDir !== places.commonDir) {
    files.push(
      path.join(places.gitDir, "config.worktree"),
      path.join(places.gitDir, "commondir"),
      path.join(places.gitDir, "gitdir"),
    );
    const dotGit = path.join(places.topLevel, ".git");
    if (fs.lstatSync(dotGit, { throwIfNoEntry: false })?.isFile()) files.push(dotGit);
  }
  return { folders, files };
}
