import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SssfError } from "../errors/sssf-error.js";
import type { PathChange } from "./path-change.js";
import { runGit } from "./run-git.js";

interface GitRun {
  cwd: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Written to git's stdin (pathspecs, NUL-separated). */
  input?: string;
}

/** Runs git with literal pathspecs; rejects with a GitError naming the subcommand and git's reason. */
function literalGit({ cwd, args, env, input }: GitRun): Promise<string> {
  return runGit(cwd, args, { env: { GIT_LITERAL_PATHSPECS: "1", ...env }, input });
}

/** Every path a set of changes touches, renames on both sides. */
export function touchedPaths(changes: readonly PathChange[]): string[] {
  const paths = new Set<string>();
  for (const change of changes) {
    paths.add(change.path);
    if (change.previousPath) paths.add(change.previousPath);
  }
  return [...paths].sort();
}

async function headCommit(root: string): Promise<string | null> {
  try {
    return (
      await literalGit({ cwd: root, args: ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"] })
    ).trim();
  } catch {
    return null;
  }
}

/** Who sssf's commits are by when the repository and the user configure no identity. */
const SSSF_IDENTITY: NodeJS.ProcessEnv = {
  GIT_AUTHOR_NAME: "sssf",
  GIT_AUTHOR_EMAIL: "sssf@localhost",
  GIT_COMMITTER_NAME: "sssf",
  GIT_COMMITTER_EMAIL: "sssf@localhost",
};

/** True when git knows both a committer and an author identity here (strictly, as `commit-tree` needs them). */
async function hasIdentity(root: string): Promise<boolean> {
  try {
    await literalGit({ cwd: root, args: ["var", "GIT_COMMITTER_IDENT"] });
    await literalGit({ cwd: root, args: ["var", "GIT_AUTHOR_IDENT"] });
    return true;
  } catch {
    return false;
  }
}

/**
 * `git commit-tree` with the identity git would use, or sssf's own when the repository and user
 * configure none. Git is asked about the identity only when the commit failed (`git var` fails
 * exactly where `commit-tree` lacks one), so a configured repository pays one process.
 */
async function commitTree(root: string, args: string[], env: NodeJS.ProcessEnv, message: string) {
  const run = (identity: NodeJS.ProcessEnv) =>
    literalGit({ cwd: root, args: ["commit-tree", ...args], env: { ...env, ...identity }, input: message });
  try {
    return (await run({})).trim();
  } catch (error) {
    if (await hasIdentity(root)) throw error;
    return (await run(SSSF_IDENTITY)).trim();
  }
}

/**
 * A private index holding `head`'s tree, being read (`git read-tree`) while the caller does something
 * else: a commit phase reads it while its `git status` runs. Only the commit or diff it is given to
 * uses it, and only when HEAD is still `head`; the caller `discard`s it once that is done, used or not.
 */
export class PreparedIndex {
  readonly file = privateIndexFile();
  readonly ready: Promise<boolean>;

  constructor(
    root: string,
    readonly head: string | null,
  ) {
    const args = head ? ["read-tree", head] : ["read-tree", "--empty"];
    this.ready = literalGit({ cwd: root, args, env: { GIT_INDEX_FILE: this.file } }).then(
      () => true,
      () => false,
    );
  }

  /** Removes the index once git is done with it. Never rejects. */
  discard(): Promise<void> {
    return this.ready.then(() => removeIndex(this.file));
  }
}

/** A fresh name for a private index file, in the temp folder. */
function privateIndexFile(): string {
  return path.join(tmpdir(), `sssf-index-${process.pid}-${randomBytes(4).toString("hex")}`);
}

function removeIndex(file: string): void {
  rmSync(file, { force: true });
  rmSync(`${file}.lock`, { force: true });
}

/**
 * A private index holding HEAD plus exactly `paths` as they are in the working tree. Staging through
 * it never reads or changes the operator's own index, so what they staged stays theirs. `prepared`,
 * when it holds this `head` and was read, saves reading HEAD's tree again (its caller removes it).
 */
async function withPrivateIndex<T>(
  root: string,
  head: string | null,
  paths: readonly string[],
  body: (env: NodeJS.ProcessEnv) => Promise<T>,
  prepared?: PreparedIndex,
): Promise<T> {
  const usable = prepared !== undefined && prepared.head === head && (await prepared.ready);
  const indexFile = usable ? prepared.file : privateIndexFile();
  const env = { GIT_INDEX_FILE: indexFile };
  try {
    if (!usable)
      await literalGit({ cwd: root, args: head ? ["read-tree", head] : ["read-tree", "--empty"], env });
    if (paths.length > 0) {
      await literalGit({
        cwd: root,
        args: ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"],
        env,
        input: `${paths.join("\0")}\0`,
      });
    }
    return await body(env);
  } finally {
    removeIndex(indexFile);
  }
}

/** HEAD as the caller read it a moment ago (the snapshot `changes` were diffed against), so git is not asked again. */
export interface KnownHead {
  /** The commit id, or null in a repository without commits; unset: read it now. */
  head?: string | null;
}

/**
 * Commits exactly `changes` (paths relative to `root`) on the current branch with `message`, through a
 * private index (`prepared`, when one was read for this HEAD meanwhile) and `update-ref` with the expected old HEAD, so nothing else is swept in and a
 * concurrent commit is refused instead of overwritten. The operator's index is then refreshed for those
 * paths only. Git hooks do not run (`commit-tree` runs none, and `git-safety.ts` points every command's
 * hooks at nothing): sssf's quality suites are the checks. `known.head` is HEAD as the
 * caller's snapshot saw it (the `update-ref` still refuses when HEAD moved since). Returns the new
 * commit id. Rejects with a GitError (code `git_failed`) when git refuses.
 */
export async function commitChanges(
  root: string,
  changes: readonly PathChange[],
  message: string,
  known: KnownHead = {},
  prepared?: PreparedIndex,
): Promise<string> {
  const paths = touchedPaths(changes);
  if (paths.length === 0) throw new SssfError("internal", "commitChanges called with no changes");
  const head = known.head !== undefined ? known.head : await headCommit(root);
  const commit = await withPrivateIndex(
    root,
    head,
    paths,
    async (env) => {
      const tree = (await literalGit({ cwd: root, args: ["write-tree"], env })).trim();
      const parents = head ? ["-p", head] : [];
      const text = message.endsWith("\n") ? message : `${message}\n`;
      return commitTree(root, [tree, ...parents, "-F", "-"], env, text);
    },
    prepared,
  );
  const subject = message.split("\n")[0] ?? "";
  await literalGit({
    cwd: root,
    args: ["update-ref", "-m", `sssf commit: ${subject}`, "HEAD", commit, head ?? "0".repeat(commit.length)],
  });
  // The operator's index still holds the old HEAD's entries for these paths; align just those.
  await literalGit({
    cwd: root,
    args: ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul"],
    input: `${paths.join("\0")}\0`,
  }).catch(() => undefined);
  return commit;
}

/**
 * The unified diff and `--stat` of `changes` against HEAD (`known.head` when the caller's snapshot
 * read it), new files included, built in a private index so the operator's index is untouched. Empty
 * strings when there are no changes.
 */
export async function diffChanges(
  root: string,
  changes: readonly PathChange[],
  known: KnownHead = {},
): Promise<{ diff: string; stat: string; base: string }> {
  const paths = touchedPaths(changes);
  const head = known.head !== undefined ? known.head : await headCommit(root);
  if (paths.length === 0) return { diff: "", stat: "", base: head ?? "" };
  return withPrivateIndex(root, head, paths, async (env) => {
    // Against HEAD, or against the empty tree in a repository without commits.
    const base =
      head ?? (await literalGit({ cwd: root, args: ["hash-object", "-t", "tree", "/dev/null"] })).trim();
    const pathspec = ["--", ...paths];
    const diff = await literalGit({
      cwd: root,
      args: ["diff", "--cached", "--no-ext-diff", "--no-textconv", "--binary", base, ...pathspec],
      env,
    });
    const stat = await literalGit({
      cwd: root,
      args: ["diff", "--cached", "--no-ext-diff", "--no-textconv", "--stat", base, ...pathspec],
      env,
    });
    return { diff, stat, base: head ?? "" };
  });
}
