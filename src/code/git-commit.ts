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

/** The committer identity git would use, or sssf's own when the repo and user configure none. */
async function identityEnv(root: string): Promise<NodeJS.ProcessEnv> {
  try {
    await literalGit({ cwd: root, args: ["var", "GIT_COMMITTER_IDENT"] });
    await literalGit({ cwd: root, args: ["var", "GIT_AUTHOR_IDENT"] });
    return {};
  } catch {
    return {
      GIT_AUTHOR_NAME: "sssf",
      GIT_AUTHOR_EMAIL: "sssf@localhost",
      GIT_COMMITTER_NAME: "sssf",
      GIT_COMMITTER_EMAIL: "sssf@localhost",
    };
  }
}

/**
 * A private index holding HEAD plus exactly `paths` as they are in the working tree. Staging through
 * it never reads or changes the operator's own index, so what they staged stays theirs.
 */
async function withPrivateIndex<T>(
  root: string,
  head: string | null,
  paths: readonly string[],
  body: (env: NodeJS.ProcessEnv) => Promise<T>,
): Promise<T> {
  const indexFile = path.join(tmpdir(), `sssf-index-${process.pid}-${randomBytes(4).toString("hex")}`);
  const env = { GIT_INDEX_FILE: indexFile };
  try {
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
    rmSync(indexFile, { force: true });
    rmSync(`${indexFile}.lock`, { force: true });
  }
}

/**
 * Commits exactly `changes` (paths relative to `root`) on the current branch with `message`, through a
 * private index and `update-ref` with the expected old HEAD, so nothing else is swept in and a
 * concurrent commit is refused instead of overwritten. The operator's index is then refreshed for those
 * paths only. Git hooks do not run: sssf's quality suites are the checks. Returns the new commit id.
 * Rejects with a GitError (code `git_failed`) when git refuses.
 */
export async function commitChanges(
  root: string,
  changes: readonly PathChange[],
  message: string,
): Promise<string> {
  const paths = touchedPaths(changes);
  if (paths.length === 0) throw new SssfError("internal", "commitChanges called with no changes");
  const head = await headCommit(root);
  const identity = await identityEnv(root);
  const commit = await withPrivateIndex(root, head, paths, async (env) => {
    const tree = (await literalGit({ cwd: root, args: ["write-tree"], env })).trim();
    const parents = head ? ["-p", head] : [];
    return (
      await literalGit({
        cwd: root,
        args: ["commit-tree", tree, ...parents, "-F", "-"],
        env: { ...env, ...identity },
        input: message.endsWith("\n") ? message : `${message}\n`,
      })
    ).trim();
  });
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
 * The unified diff and `--stat` of `changes` against HEAD, new files included, built in a private
 * index so the operator's index is untouched. Empty strings when there are no changes.
 */
export async function diffChanges(
  root: string,
  changes: readonly PathChange[],
): Promise<{ diff: string; stat: string; base: string }> {
  const paths = touchedPaths(changes);
  const head = await headCommit(root);
  if (paths.length === 0) return { diff: "", stat: "", base: head ?? "" };
  return withPrivateIndex(root, head, paths, async (env) => {
    // Against HEAD, or against the empty tree in a repository without commits.
    const base =
      head ?? (await literalGit({ cwd: root, args: ["hash-object", "-t", "tree", "/dev/null"] })).trim();
    const pathspec = ["--", ...paths];
    const diff = await literalGit({
      cwd: root,
      args: ["diff", "--cached", "--binary", base, ...pathspec],
      env,
    });
    const stat = await literalGit({
      cwd: root,
      args: ["diff", "--cached", "--stat", base, ...pathspec],
      env,
    });
    return { diff, stat, base: head ?? "" };
  });
}
