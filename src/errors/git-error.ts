import { SssfError } from "./sssf-error.js";

/** What a failed git command was and said. */
export interface GitFailure {
  /** The argv run, `git` first (`["git", "worktree", "add", …]`). */
  command: string[];
  /** Where it ran. */
  cwd: string;
  /** Git's exit status; null when git could not be started (not installed) or was killed by a signal. */
  gitExitCode: number | null;
  /** Git's stderr as printed ("" when it printed none or never started). */
  stderr: string;
}

/**
 * A git command sssf ran failed: git is missing, exited non-zero or was killed. `message` is one line
 * naming the command, the directory and git's reason; the fields say what ran and what git printed.
 * (`SssfError.exitCode` stays the CLI's exit status, hence `gitExitCode` for git's own.)
 */
export class GitError extends SssfError {
  readonly command: string[];
  readonly cwd: string;
  readonly gitExitCode: number | null;
  readonly stderr: string;

  constructor(failure: GitFailure, message: string, options: { cause?: unknown } = {}) {
    super("git_failed", message, options);
    this.name = "GitError";
    this.command = failure.command;
    this.cwd = failure.cwd;
    this.gitExitCode = failure.gitExitCode;
    this.stderr = failure.stderr;
  }
}
