import { execFile } from "node:child_process";
import { SssfError } from "../errors/sssf-error.js";

/** What one git command did. */
export interface GitOutcome {
  ok: boolean;
  stdout: string;
  /** Trimmed stderr (git's reason when it refused). */
  stderr: string;
}

/** Listings of worktrees and refs stay small; this bounds a runaway one. */
const MAX_BUFFER = 64 * 1024 * 1024;

/**
 * Runs git (no shell) in `cwd`. Never rejects: a missing git or a non-zero exit resolve with
 * `ok: false` and git's stderr. `GIT_OPTIONAL_LOCKS=0` keeps read-only commands from refreshing an index.
 */
export function gitOutcome(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<GitOutcome> {
  return new Promise((resolve) => {
    execFile(
      "git",
      [...args],
      {
        cwd,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", ...env },
        maxBuffer: MAX_BUFFER,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        const reason = (stderr || (error ? error.message : "")).trim();
        resolve({ ok: error === null, stdout, stderr: reason });
      },
    );
  });
}

/** Like `gitOutcome`, but rejects with SssfError("git_failed") naming the command and git's reason. */
export async function gitOrThrow(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  const outcome = await gitOutcome(cwd, args, env);
  if (!outcome.ok) {
    throw new SssfError(
      "git_failed",
      `git ${args.slice(0, 2).join(" ")} failed in ${cwd}: ${outcome.stderr}`,
    );
  }
  return outcome.stdout;
}

/** The first line of git's output, trimmed; null when the command failed or printed nothing. */
export async function gitLine(cwd: string, args: readonly string[]): Promise<string | null> {
  const outcome = await gitOutcome(cwd, args);
  const line = outcome.stdout.split("\n")[0]?.trim() ?? "";
  return outcome.ok && line !== "" ? line : null;
}
