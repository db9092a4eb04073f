import { runGit } from "../code/run-git.js";
import { GitError } from "../errors/git-error.js";

/** What one git command did. */
export interface GitOutcome {
  ok: boolean;
  stdout: string;
  /** Git's reason when it refused (trimmed stderr, else why it did not run); "" on success. */
  stderr: string;
}

/** Listings of worktrees and refs stay small; this bounds a runaway one. */
const MAX_BUFFER = 64 * 1024 * 1024;

/** `git <first two args> failed in <cwd>: <git's whole reason>`. */
function worktreeMessage(cwd: string, args: readonly string[], reason: string): string {
  return `git ${args.slice(0, 2).join(" ")} failed in ${cwd}: ${reason}`;
}

/**
 * Runs git (no shell) in `cwd`, rejecting with a GitError naming the command and git's reason
 * (`git worktree add failed in <cwd>: …`). `GIT_OPTIONAL_LOCKS=0` keeps read-only commands from
 * refreshing an index.
 */
export function gitOrThrow(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  return runGit(cwd, args, {
    env,
    maxBuffer: MAX_BUFFER,
    message: (_failure, reason) => worktreeMessage(cwd, args, reason),
  });
}

/**
 * Like `gitOrThrow`, but never rejects: a missing git or a non-zero exit resolve with `ok: false`
 * and git's reason (its stderr, else why it did not run).
 */
export async function gitOutcome(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<GitOutcome> {
  try {
    return { ok: true, stdout: await gitOrThrow(cwd, args, env), stderr: "" };
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const reason = (error.stderr || (error.cause instanceof Error ? error.cause.message : "")).trim();
    return { ok: false, stdout: "", stderr: reason };
  }
}

/** The first line of git's output, trimmed; null when the command failed or printed nothing. */
export async function gitLine(cwd: string, args: readonly string[]): Promise<string | null> {
  const outcome = await gitOutcome(cwd, args);
  const line = outcome.stdout.split("\n")[0]?.trim() ?? "";
  return outcome.ok && line !== "" ? line : null;
}

/**
 * Git died reading another worktree's half-written record (`failed to read .git/worktrees/<id>/commondir`):
 * a git process outside sssf's lock (the operator's, an agent's) was adding or removing a worktree.
 */
export function isTransientWorktreeFailure(error: unknown): boolean {
  return (
    error instanceof GitError && /failed to read \S*worktrees\/[^/\s]+\/(commondir|gitdir)/.test(error.stderr)
  );
}

/** How `retryTransient` retries. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  attempts?: number;
  /** Wait before the first retry, tripled before each next one (default 25 ms: 25, 75, 225). */
  delayMs?: number;
  /** Told of each transient failure before the retry it causes (attempt 1 is the first retry). */
  onRetry?: (error: GitError, attempt: number) => void | Promise<void>;
}

/**
 * Runs `work(attempt)` (attempt 0 first) and runs it again, after a growing pause, while it rejects
 * with a transient worktree failure (`isTransientWorktreeFailure`), at most `attempts` times in all.
 * Any other rejection, and the last transient one, reject unchanged.
 */
export async function retryTransient<T>(
  work: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 4;
  let delay = options.delayMs ?? 25;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (!isTransientWorktreeFailure(error) || attempt + 1 >= attempts) throw error;
      await options.onRetry?.(error as GitError, attempt + 1);
      await new Promise<void>((resolve) => setTimeout(resolve, delay));
      delay *= 3;
    }
  }
}
