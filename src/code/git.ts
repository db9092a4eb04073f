import type { ObjectFormat } from "./fingerprint.js";
import { markedOutsideGit, markOutsideGit, repoFacts } from "./git-facts.js";
import { parsePorcelainV2 } from "./porcelain-v2.js";
import { runGit, runGitSync } from "./run-git.js";

/** `runGit` for reads whose failure only means "no answer": stdout, or null when git fails. */
function gitOrNull(cwd: string, args: string[]): Promise<string | null> {
  return runGit(cwd, args).catch(() => null);
}

/** Synchronous `gitOrNull`, for the rare diff across commits. */
function gitSyncOrNull(cwd: string, args: string[]): string | null {
  try {
    return runGitSync(cwd, args);
  } catch {
    return null;
  }
}

/** Where `root` sits in its repository (HEAD is not part of it: `gitStatus` reads it with the paths). */
export interface GitLocation {
  /** `root` relative to the top level, "" or ending in "/" (as `git rev-parse --show-prefix` prints it). */
  prefix: string;
  format: ObjectFormat;
}

/** What `git status` says of `root` in one process: HEAD, and each differing path with HEAD's object id. */
export interface GitStatus {
  /** HEAD commit id, or null in a repository without commits. */
  head: string | null;
  /** Relative path (to `root`) -> HEAD's object id of it, or null when HEAD lacks it. */
  paths: Map<string, string | null>;
}

/**
 * Paths under `root` that differ from HEAD in the index or work tree (untracked, not ignored, files
 * included), each with HEAD's object id, and HEAD itself, from ONE `git status --porcelain=v2`. Null
 * when git fails. Paths with spaces are safe (-z); renames are reported as delete plus add.
 */
export async function gitStatus(root: string, location: GitLocation): Promise<GitStatus | null> {
  const args = [
    "status",
    "--porcelain=v2",
    "--branch",
    // Only HEAD is read from the branch lines: no walk of the commits between a branch and its upstream.
    "--no-ahead-behind",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    "--",
    ".",
  ];
  const output = await gitOrNull(root, args);
  if (output === null) return null;
  const status = parsePorcelainV2(output);
  const paths = new Map<string, string | null>();
  for (const { path, headOid } of status.entries) {
    const relative = path.startsWith(location.prefix) ? path.slice(location.prefix.length) : "";
    if (relative !== "") paths.set(relative, headOid);
  }
  return { head: status.head, paths };
}

/**
 * Where `root` sits in its repository, or null when git is unavailable or `root` is not in a work tree.
 * Roots are looked at again and again (a snapshot before and after every send), and the prefix and
 * object format of a work tree do not change, so they come from the process's `repoFacts` (one git
 * process per directory); a root outside git stays outside for the process's life, so the snapshots
 * before and after a send are always of the same kind. HEAD is not included; read it from `gitStatus`.
 */
export async function locateGitRepo(root: string): Promise<GitLocation | null> {
  if (markedOutsideGit(root)) return null;
  const facts = await repoFacts(root);
  if (facts === null) {
    markOutsideGit(root);
    return null;
  }
  return { prefix: facts.prefix, format: facts.format };
}

/** Parses `git ls-tree -r -z` output into path -> object id. */
export function parseTree(output: string | null): Map<string, string> {
  const tree = new Map<string, string>();
  for (const record of (output ?? "").split("\0")) {
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const oid = record.slice(0, tab).split(" ")[2];
    if (oid !== undefined) tree.set(record.slice(tab + 1), oid);
  }
  return tree;
}

/** Synchronous `readTree`. */
export function readTreeSync(root: string, commit: string | null): Map<string, string> {
  return commit === null ? new Map() : parseTree(gitSyncOrNull(root, ["ls-tree", "-r", "-z", commit]));
}
