/**
 * The one way sssf runs git: no shell interprets its arguments (each is passed as one word), no
 * program that config or the environment names runs (`git-safety.ts`), `GIT_OPTIONAL_LOCKS=0` (a read must never take index.lock away
 * from an agent's own git commands), stdin given or empty, and every failure a `GitError` carrying the
 * command, git's exit status and its stderr.
 */
import { type ExecFileException, execFile, execFileSync } from "node:child_process";
import { GitError, type GitFailure } from "../errors/git-error.js";
import { CONFIG_LISTING_ARGS, safeGitCommand, safeGitCommandSync } from "./git-safety.js";

/** Output of a listing or a diff over a whole run can be large; keep it bounded but generous. */
const MAX_BUFFER = 512 * 1024 * 1024;

/** How to run one git command. */
export interface GitOptions {
  /** Set over the process environment (and over `GIT_OPTIONAL_LOCKS=0`). */
  env?: NodeJS.ProcessEnv;
  /** Written to git's stdin (pathspecs, a commit message); stdin is empty otherwise. */
  input?: string;
  /** Most bytes of stdout accepted (default 512 MiB); more fails the command. */
  maxBuffer?: number;
  /**
   * The failure's message, from what failed and git's `reason` (its trimmed stderr, else why it did
   * not run). Default: `git <subcommand> failed in <cwd>: <the reason's last three lines>`.
   */
  message?: (failure: GitFailure, reason: string) => string;
}

/**
 * Runs `git <args>` in `cwd` and resolves to its stdout as UTF-8. Rejects with a `GitError` when git
 * is missing, exits non-zero, is killed, or prints more than `maxBuffer`.
 * @example const head = (await runGit(root, ["rev-parse", "HEAD"])).trim();
 */
export async function runGit(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<string> {
  return (await runGitBytes(cwd, args, options)).toString("utf8");
}

/**
 * `runGit` for exact bytes (blob contents): resolves to stdout as a Buffer, rejects with a `GitError`.
 * git is started by sssf itself, under `git-safety.ts`'s rule (no program named by config or
 * environment runs).
 */
export async function runGitBytes(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<Buffer> {
  // The listing's failure is the command's: it did not run, for git's reason.
  const safe = await safeGitCommand(cwd, args, baseEnv(options), (listing) =>
    execute(cwd, CONFIG_LISTING_ARGS, listing, "", MAX_BUFFER, {}).then(
      (stdout) => stdout.toString("utf8"),
      (error: unknown) => {
        throw asCommandError(error, cwd, args, options);
      },
    ),
  );
  return execute(cwd, safe.args, safe.env, options.input ?? "", options.maxBuffer ?? MAX_BUFFER, options);
}

/** `git args` started under exactly `env`, stdin given or empty. */
function execute(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  input: string,
  maxBuffer: number,
  options: GitOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      [...args],
      { cwd, env, maxBuffer, encoding: "buffer" },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else {
          const exitCode = typeof error.code === "number" ? error.code : null;
          // Kept on the cause: some commands answer on stdout with a non-zero exit (`merge-tree`'s conflicts).
          Object.assign(error, { stdout });
          reject(gitError(cwd, args, exitCode, stderr.toString("utf8"), error, options));
        }
      },
    );
    // git may exit before reading its stdin (e.g. on an error): a closed pipe is not our failure.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(input);
  });
}

/**
 * Synchronous `runGit`, for the rare read that cannot wait (a tree across commits). Returns stdout as
 * UTF-8; throws a `GitError` as `runGit` rejects.
 */
export function runGitSync(cwd: string, args: readonly string[], options: GitOptions = {}): string {
  const safe = safeGitCommandSync(cwd, args, baseEnv(options), (listing) => {
    try {
      return executeSync(cwd, CONFIG_LISTING_ARGS, listing, "", MAX_BUFFER, {});
    } catch (error) {
      throw asCommandError(error, cwd, args, options);
    }
  });
  return executeSync(cwd, safe.args, safe.env, options.input ?? "", options.maxBuffer ?? MAX_BUFFER, options);
}

function executeSync(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  input: string,
  maxBuffer: number,
  options: GitOptions,
): string {
  try {
    return execFileSync("git", [...args], {
      cwd,
      env,
      maxBuffer,
      encoding: "utf8",
      input,
      stdio: ["pipe", "pipe", "pipe"],
    });
  } catch (caught) {
    const error = caught as Error & { status?: number | null; stderr?: string | Buffer };
    const exitCode = typeof error.status === "number" ? error.status : null;
    throw gitError(cwd, args, exitCode, String(error.stderr ?? ""), error, options);
  }
}

/** A failed config listing as the failure of the command `args` it was run for (same status and stderr). */
function asCommandError(error: unknown, cwd: string, args: readonly string[], options: GitOptions): Error {
  if (!(error instanceof GitError)) return error as Error;
  const cause = error.cause instanceof Error ? error.cause : error;
  return gitError(cwd, args, error.gitExitCode, error.stderr, cause, options);
}

/** The environment asked for, before `git-safety.ts` takes out and puts in what its rule says. */
function baseEnv(options: GitOptions): NodeJS.ProcessEnv {
  return { ...process.env, GIT_OPTIONAL_LOCKS: "0", ...options.env };
}

function gitError(
  cwd: string,
  args: readonly string[],
  gitExitCode: number | null,
  stderr: string,
  cause: Error | ExecFileException,
  options: GitOptions,
): GitError {
  const failure: GitFailure = { command: ["git", ...args], cwd, gitExitCode, stderr };
  const reason = (stderr || cause.message).trim();
  const message =
    options.message?.(failure, reason) ??
    `git ${args[0] ?? ""} failed in ${cwd}: ${reason.split("\n").slice(-3).join(" ")}`;
  return new GitError(failure, message, { cause });
}
