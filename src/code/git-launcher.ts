/**
 * Starts git processes from a small shell that stays beside sssf, instead of from sssf itself. Starting
 * a process copies the starter's page tables, and sssf's are large: each git started from sssf blocked
 * it 4–10 ms (more than many git commands take) on the machines we measured, and a run starts a dozen.
 * The shell's are small. One shell per process, started with the first git command; each command is a
 * background job of it, so commands run side by side as before.
 *
 * A command's stdout and stderr go to files in a private folder (removed when sssf exits), its stdin
 * comes from one or /dev/null, and the shell reports its exit status on a line of its own. Where there
 * is no /bin/sh (Windows), with `SSSF_GIT_LAUNCHER=0`, for an environment variable the shell cannot
 * set, and once the shell is gone, git is started directly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processAlive } from "../util/process-group.js";

/** One git command to start: `git args` in `cwd` with the whole environment `env`. */
export interface GitCommand {
  cwd: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Written to git's stdin ("" for none). */
  input: string;
  /** Most bytes of stdout kept; more sets `overflow`. */
  maxBuffer: number;
}

/** What one git command did. */
export interface Launched {
  /** Exit status; null when a signal ended it (`signal` then names it). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Set when git could not be started at all (ENOENT: no git on PATH; EACCES: not executable). */
  startError?: NodeJS.ErrnoException;
  /** Set when stdout exceeded the bytes asked for (its first `maxBuffer` bytes are kept). */
  overflow?: boolean;
}

interface Pending {
  resolve: (launched: Launched) => void;
  reject: (error: Error) => void;
  out: string;
  err: string;
  input: string | null;
  maxBuffer: number;
}

const SHELL = "/bin/sh";
/** How dash, bash and busybox say the command itself could not be run. */
const NOT_STARTED = /\bgit: (?:command )?not found|\bgit: Permission denied|\bgit: cannot execute/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `text` as one shell word: single-quoted, each quote closed, escaped and reopened. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** Names of the signals a shell's status 128+n stands for. */
function signalOf(status: number): NodeJS.Signals | null {
  const names: Record<number, NodeJS.Signals> = {
    1: "SIGHUP",
    2: "SIGINT",
    3: "SIGQUIT",
    6: "SIGABRT",
    9: "SIGKILL",
    13: "SIGPIPE",
    14: "SIGALRM",
    15: "SIGTERM",
  };
  return names[status - 128] ?? null;
}

/** Reads at most `limit` bytes of `file`; says whether there were more. Deletes nothing. */
function readUpTo(file: string, limit: number): { bytes: Buffer; more: boolean } {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const wanted = Math.min(size, limit);
    const bytes = Buffer.allocUnsafe(wanted);
    let read = 0;
    while (read < wanted) {
      const n = readSync(fd, bytes, read, wanted - read, read);
      if (n === 0) break;
      read += n;
    }
    return { bytes: bytes.subarray(0, read), more: size > limit };
  } finally {
    closeSync(fd);
  }
}

/**
 * Free bytes /dev/shm must have to hold commands' outputs: a container's is often 64 MB, and a blob or
 * a listing git prints can be bigger (the temp folder, on disk, takes those).
 */
const SHM_MIN_FREE_BYTES = 1024 * 1024 * 1024;

/** /dev/shm when this system has one we may write with room to spare, else the temp folder. */
function outputFolder(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    const { bavail, bsize } = statfsSync("/dev/shm");
    if (bavail * bsize >= SHM_MIN_FREE_BYTES) return "/dev/shm";
  } catch {
    // no /dev/shm here
  }
  return tmpdir();
}

/** A folder of a process that is gone, untouched this long, is a killed sssf's: it is removed. */
const STALE_FOLDER_MS = 60 * 60 * 1000;

/**
 * Removes from `base` the launcher folders (`sssf-git-<pid>-…`) of processes that are gone and that
 * nothing touched for an hour: a killed sssf leaves its folder behind. Another user's, or one whose
 * process lives (or may live, in another PID namespace sharing the folder, until the hour is up), is
 * kept. Never throws.
 */
export function sweepStaleFolders(base: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^sssf-git-(\d+)-/.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    const folder = path.join(base, name);
    try {
      if (now - statSync(folder).mtimeMs < STALE_FOLDER_MS) continue;
      rmSync(folder, { recursive: true, force: true });
    } catch {
      // another user's, or gone already
    }
  }
}

/** Thrown for commands a launcher took but could never start (the shell did not start). */
export class NotLaunched extends Error {}

class ShellLauncher {
  readonly #shell: ChildProcess;
  /** The private folder of the commands running now; made for them, removed once none runs. */
  #dir: string | null = null;
  /** The environment the shell was started with: each command sets what differs from it. */
  readonly #env: NodeJS.ProcessEnv;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #lines = "";
  #gone = false;

  constructor(env: NodeJS.ProcessEnv) {
    this.#env = { ...env };
    process.once("exit", () => this.#removeFolder());
    this.#shell = spawn(SHELL, [], { env: this.#env, stdio: ["pipe", "pipe", "ignore"] });
    // While the first command runs, not before it: a temp folder can hold thousands of names.
    setImmediate(() => sweepStaleFolders(outputFolder()));
    this.#shell.on("error", () => this.#end());
    this.#shell.on("exit", () => this.#end());
    this.#shell.stdin?.on("error", () => this.#end());
    this.#shell.stdout?.setEncoding("latin1");
    this.#shell.stdout?.on("data", (chunk: string) => this.#read(chunk));
    this.#idle();
  }

  /** The private folder commands' outputs pass through now, null while none runs. */
  get folder(): string | null {
    return this.#dir;
  }

  /** The folder for the commands about to run: made when none runs. */
  #folder(): string {
    // In memory where there is a tmpfs for it: git's output (a blob's bytes) never reaches a disk.
    this.#dir ??= mkdtempSync(path.join(outputFolder(), `sssf-git-${process.pid}-`));
    return this.#dir;
  }

  #removeFolder(): void {
    if (this.#dir === null) return;
    rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = null;
  }

  /** False once the shell is gone: commands then start git directly. */
  get usable(): boolean {
    return !this.#gone;
  }

  /**
   * The shell's command for `git args` in `cwd` with `env`, or null when the shell cannot set that
   * environment (a variable name a shell cannot hold).
   */
  #script(id: number, cwd: string, args: readonly string[], env: NodeJS.ProcessEnv, input: string | null) {
    const lines: string[] = [];
    for (const name of new Set([...Object.keys(this.#env), ...Object.keys(env)])) {
      const value = env[name];
      if (value === this.#env[name]) continue;
      if (!NAME.test(name)) return null;
      lines.push(value === undefined ? `unset ${name}` : `export ${name}=${quote(value)}`);
    }
    const folder = this.#folder();
    const file = (kind: string) => quote(path.join(folder, `${id}.${kind}`));
    const command = [`cd -- ${quote(path.resolve(cwd))}`, ...lines, `git ${args.map(quote).join(" ")}`].join(
      " && ",
    );
    const stdin = input === null ? "/dev/null" : file("in");
    // One background job per command: commands run side by side, and the shell reaps each finished
    // job when it reads the next command. A failed `cd` speaks through the same stderr file.
    return `{ { ${command}; } <${stdin} >${file("out")} 2>${file("err")}; echo "${id} $?"; } &\n`;
  }

  /** Starts `command`; null when this launcher cannot (the caller starts git itself). */
  launch({ cwd, args, env, input, maxBuffer }: GitCommand): Promise<Launched> | null {
    if (this.#gone) return null;
    const id = this.#next++;
    const stdin = input === "" ? null : input;
    const script = this.#script(id, cwd, args, env, stdin);
    if (script === null) return null;
    const folder = this.#folder();
    const out = path.join(folder, `${id}.out`);
    const err = path.join(folder, `${id}.err`);
    const inFile = stdin === null ? null : path.join(folder, `${id}.in`);
    if (inFile !== null) writeFileSync(inFile, input, { mode: 0o600 });
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, out, err, input: inFile, maxBuffer });
      if (this.#pending.size === 1) this.#busy();
      this.#shell.stdin?.write(script);
    });
  }

  #read(chunk: string): void {
    this.#lines += chunk;
    for (let end = this.#lines.indexOf("\n"); end >= 0; end = this.#lines.indexOf("\n")) {
      const line = this.#lines.slice(0, end);
      this.#lines = this.#lines.slice(end + 1);
      const [id, status] = line.split(" ").map(Number);
      const pending = this.#pending.get(id as number);
      if (pending === undefined || status === undefined || Number.isNaN(status)) continue;
      this.#pending.delete(id as number);
      this.#settle(pending, status);
      if (this.#pending.size === 0) {
        this.#idle();
        this.#removeFolder();
      }
    }
  }

  #settle(pending: Pending, status: number): void {
    try {
      const stdout = readUpTo(pending.out, pending.maxBuffer);
      const stderr = readUpTo(pending.err, 64 * 1024 * 1024).bytes;
      const launched: Launched = {
        code: status > 128 ? null : status,
        signal: status > 128 ? signalOf(status) : null,
        stdout: stdout.bytes,
        stderr,
      };
      if (status > 128 && launched.signal === null) launched.code = status;
      if (stdout.more) launched.overflow = true;
      // The shell's own "not found" / "cannot execute" (not a status of git's own): git never started.
      if ((status === 127 || status === 126) && NOT_STARTED.test(stderr.toString("latin1"))) {
        const code = status === 127 ? "ENOENT" : "EACCES";
        launched.startError = Object.assign(new Error(`spawn git ${code}`), { code, syscall: "spawn git" });
      }
      pending.resolve(launched);
    } catch (error) {
      pending.reject(error as Error);
    } finally {
      for (const file of [pending.out, pending.err, pending.input])
        if (file !== null) rmSync(file, { force: true });
    }
  }

  /**
   * The shell ended. Commands it never started (it did not start itself) are `NotLaunched`, for the
   * caller to start directly; what a shell that ran was running cannot be known: those fail.
   */
  #end(): void {
    if (this.#gone) return;
    this.#gone = true;
    const failed = [...this.#pending.values()];
    this.#pending.clear();
    const started = this.#shell.pid !== undefined;
    for (const pending of failed) {
      pending.reject(
        started
          ? new Error("the shell that started git ended before git did")
          : new NotLaunched("the shell that starts git could not be started"),
      );
    }
    this.#removeFolder();
  }

  /** Nothing running: the shell does not keep sssf alive. */
  #idle(): void {
    this.#shell.unref();
    (this.#shell.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (this.#shell.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }

  /** A command runs: sssf waits for its answer. */
  #busy(): void {
    this.#shell.ref();
    (this.#shell.stdout as unknown as { ref?: () => void } | null)?.ref?.();
  }
}

let launcher: ShellLauncher | null | undefined;

/**
 * Starts `command` from the launcher shell; null when git should be started directly (no /bin/sh,
 * `SSSF_GIT_LAUNCHER=0`, an environment the shell cannot set, the shell gone, no room for its files).
 */
export function launchGit(command: GitCommand): Promise<Launched> | null {
  if (launcher === undefined) {
    launcher = null;
    if (process.platform !== "win32" && process.env.SSSF_GIT_LAUNCHER !== "0" && existsSync(SHELL)) {
      try {
        launcher = new ShellLauncher(command.env);
      } catch {
        launcher = null; // no temp folder, no shell: git is started directly
      }
    }
  }
  if (launcher === null || !launcher.usable) return null;
  try {
    return launcher.launch(command);
  } catch {
    return null; // no room for its files (a full /dev/shm): this command starts git directly
  }
}

/** The folder the launcher's commands' outputs pass through, null before its first command or without one. */
export function launcherFolder(): string | null {
  return launcher?.folder ?? null;
}
