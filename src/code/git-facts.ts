/**
 * Where a directory sits in git, as facts that stay put while sssf runs: its work tree's top level,
 * its prefix there, the repository's common git dir, the work tree's own git dir, the hooks folder
 * git runs and the object format. A run asks for them again and again (every snapshot, every
 * boundary, the end of a worktree run), so they are read with one `git rev-parse` per directory and
 * process, concurrent callers sharing it. HEAD, refs, the index and files are never kept here: they
 * change with every send and commit and are read each time. A directory outside git is not kept
 * either (it may become a work tree), and adding or removing a worktree forgets every directory in it.
 */
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import type { ObjectFormat } from "./fingerprint.js";
import { configuredHooksPath } from "./git-safety.js";
import { runGit } from "./run-git.js";

/** Where a directory sits in git; every path absolute, as git prints it. */
export interface RepoFacts {
  /** Top level of the work tree holding the directory. */
  topLevel: string;
  /** The directory relative to `topLevel`: "" or ending in "/" (as `git rev-parse --show-prefix` prints it). */
  prefix: string;
  /** The git dir all of the repository's worktrees share (`<repo>/.git`). */
  commonDir: string;
  /** This work tree's own git dir (`commonDir` itself outside a linked worktree). */
  gitDir: string;
  /** The hooks git runs here (`core.hooksPath`, else `<commonDir>/hooks`). */
  hooksDir: string;
  format: ObjectFormat;
}

/**
 * `git rev-parse` options printing the facts, one line each: "true", then `topLevel`, `prefix`, the
 * object format, `commonDir`, `gitDir` (git 2.31+ for `--path-format`). Other options may follow them
 * in the same process (`parseRepoFacts` reads the first lines only). The hooks folder is not asked:
 * sssf's git sees `core.hooksPath` pointed at nothing (`git-safety.ts`), so it comes from the config
 * listing that rule made for the same directory.
 */
export const REPO_FACTS_ARGS: readonly string[] = [
  "--is-inside-work-tree",
  "--show-toplevel",
  "--show-prefix",
  "--show-object-format",
  "--path-format=absolute",
  "--git-common-dir",
  "--git-dir",
];

/** How many lines of output `REPO_FACTS_ARGS` print. */
export const REPO_FACTS_LINES = 6;

/**
 * The facts from the first `REPO_FACTS_LINES` lines of `rev-parse REPO_FACTS_ARGS…` run in `dir`; null
 * outside a work tree.
 */
export function parseRepoFacts(lines: readonly string[], dir: string): RepoFacts | null {
  const [inside, topLevel = "", prefix = "", format = "", commonDir = "", gitDir = ""] = lines;
  if (inside !== "true" || topLevel === "" || commonDir === "" || gitDir === "") return null;
  const resolved = (p: string) => path.resolve(topLevel, p);
  return {
    topLevel,
    prefix,
    commonDir: resolved(commonDir),
    gitDir: resolved(gitDir),
    hooksDir: hooksDirOf(configuredHooksPath(dir), topLevel, resolved(commonDir)),
    format: format === "sha256" ? "sha256" : "sha1",
  };
}

/**
 * The hooks the user's own git runs: `core.hooksPath` as configured (`~/` is the home folder; a
 * relative path is relative to the top level, where git runs hooks), else `<commonDir>/hooks`.
 */
export function hooksDirOf(
  configured: string | null | undefined,
  topLevel: string,
  commonDir: string,
): string {
  if (!configured) return path.join(commonDir, "hooks");
  const home = process.env.HOME;
  const expanded =
    home && (configured === "~" || configured.startsWith("~/"))
      ? path.join(home, configured.slice(1))
      : configured;
  return path.resolve(topLevel, expanded);
}

const known = new Map<string, Promise<RepoFacts | null>>();
/** Directories a snapshot found outside git, which it keeps taking for outside (`locateGitRepo`). */
const outside = new Set<string>();

function keyOf(dir: string): string {
  return path.resolve(dir);
}

/** Keeps `facts` for `dir` and for its top level (prefix ""), over whatever was known of them. */
export function rememberRepoFacts(dir: string, facts: RepoFacts): void {
  known.set(keyOf(dir), Promise.resolve(facts));
  const top = keyOf(facts.topLevel);
  if (top !== keyOf(dir)) known.set(top, Promise.resolve({ ...facts, prefix: "" }));
}

/**
 * The facts of `dir`, or null when git is missing or `dir` is not inside a work tree. Only the first
 * call for a directory (or a `rememberRepoFacts` before it) spawns git. Never rejects.
 * @example const facts = await repoFacts(root); if (facts) console.log(facts.commonDir);
 */
export function repoFacts(dir: string): Promise<RepoFacts | null> {
  const key = keyOf(dir);
  const kept = known.get(key);
  if (kept !== undefined) return kept;
  const reading = runGit(key, ["rev-parse", ...REPO_FACTS_ARGS])
    .then((output) => parseRepoFacts(output.split("\n"), key))
    .catch(() => null);
  known.set(key, reading);
  void reading.then((facts) => {
    if (known.get(key) !== reading) return;
    if (facts === null) known.delete(key);
    else if (!known.has(keyOf(facts.topLevel))) rememberRepoFacts(key, facts);
  });
  return reading;
}

/** Marks `dir` as outside git for the process's life, or until a worktree is added or removed there. */
export function markOutsideGit(dir: string): void {
  outside.add(keyOf(dir));
}

/** True when `markOutsideGit` marked `dir` and nothing forgot it since. */
export function markedOutsideGit(dir: string): boolean {
  return outside.has(keyOf(dir));
}

/**
 * Forgets every directory's facts (not the marks of `markOutsideGit`): a run starts with what git says
 * now, so a process running one run after another (the library) never carries facts from one to the next.
 */
export function forgetAllRepoFacts(): void {
  known.clear();
}

/** Forgets what is known of `dir` and of every directory inside it (a worktree added or removed there). */
export function forgetRepoFacts(dir: string): void {
  const root = keyOf(dir);
  const within = (key: string) => key === root || key.startsWith(`${root}${path.sep}`);
  for (const key of [...known.keys()]) if (within(key)) known.delete(key);
  for (const key of [...outside]) if (within(key)) outside.delete(key);
}

/**
 * The facts of a linked worktree sssf just added from the checkout whose facts are `main`, read
 * without git: its top level (real path, as git prints it), `prefix` (the sub-folder a run works in),
 * the common dir, object format and hooks of the checkout, and its own git dir from the `.git` file
 * git wrote there (`gitdir: <path>`). Null when they cannot be known that way — hooks set by
 * `core.hooksPath` (a relative one is relative to each work tree), or no readable `.git` file — so
 * the caller asks git. Never throws.
 */
export function addedWorktreeFacts(worktree: string, prefix: string, main: RepoFacts): RepoFacts | null {
  if (main.hooksDir !== path.join(main.commonDir, "hooks")) return null;
  try {
    const pointer = readFileSync(path.join(worktree, ".git"), "utf8");
    const match = /^gitdir: (.+?)\r?\n?$/.exec(pointer);
    if (match === null) return null;
    const topLevel = realpathSync.native(worktree);
    const gitDir = path.resolve(topLevel, match[1] as string);
    // A git dir outside the checkout's worktrees is not one `git worktree add` made here.
    if (path.dirname(gitDir) !== path.join(main.commonDir, "worktrees")) return null;
    return {
      topLevel,
      prefix,
      commonDir: main.commonDir,
      gitDir,
      hooksDir: main.hooksDir,
      format: main.format,
    };
  } catch {
    return null;
  }
}
