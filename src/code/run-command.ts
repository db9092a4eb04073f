import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import {
  childMarkers,
  terminateProcessGroup,
  terminateSpawnLeftovers,
  trackProcessGroup,
  untrackProcessGroup,
} from "../util/process-group.js";
import { OutputTail } from "./output-tail.js";

export interface RunCommandOptions {
  /** argv; the program is looked up on PATH, never run through a shell. */
  command: string[];
  cwd: string;
  /** Added to (and overriding) the inherited environment. */
  env?: Record<string, string>;
  /** Wall-clock limit; the whole process group is killed when it passes. Non-positive or infinite: none. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of combined stdout+stderr kept (default 8 KB). */
  tailBytes?: number;
  /** Told every chunk of combined stdout+stderr as it arrives (to stream it to a file). */
  onOutput?: (chunk: Buffer) => void;
  /** Told every chunk of stdout alone (a per-test report printed there), before `onOutput`. */
  onStdout?: (chunk: Buffer) => void;
}

export interface RunCommandResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** The last `tailBytes` of combined stdout+stderr. */
  outputTail: string;
  /** True when output before `outputTail` was dropped (its first characters may end a longer line). */
  outputCut: boolean;
  /** Why the program could not be started (ENOENT…), else null. */
  spawnError: string | null;
}

/** setTimeout overflows above this and would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** After the main process exits, how long leftover pipe holders get before the streams are dropped. */
const CLOSE_GRACE_MS = 2000;

/**
 * Runs one command in its own process group and reports how it ended. Never rejects: a missing
 * program, a timeout or an abort is data in the result. On timeout or abort the whole group (children
 * and grandchildren) is terminated; when the command exits, processes it left in its group are
 * terminated too. Output is kept as a bounded tail, never whole.
 * @example const result = await runCommand({ command: ["npm", "test"], cwd: repoRoot, timeoutMs: 600_000 });
 */
export function runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
  const started = performance.now();
  const tail = new OutputTail(options.tailBytes ?? 8 * 1024);
  const result = (fields: Partial<RunCommandResult>): RunCommandResult => ({
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    durationMs: Math.round(performance.now() - started),
    outputTail: tail.text(),
    outputCut: tail.cut,
    spawnError: null,
    ...fields,
  });
  const [program, ...args] = options.command;
  if (program === undefined || program === "")
    return Promise.resolve(result({ spawnError: "empty command" }));
  if (options.signal?.aborted) return Promise.resolve(result({ aborted: true }));

  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: string | null } | null = null;
    let settled = false;
    let closeTimer: NodeJS.Timeout | undefined;

    // Marked so that processes which leave the group (`setsid`) are still found and ended.
    const markers = childMarkers();
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env, ...markers.env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pid = child.pid;
    if (pid !== undefined) trackProcessGroup(pid);
    const onData = (chunk: Buffer) => {
      tail.push(chunk);
      options.onOutput?.(chunk);
    };
    child.stdout?.on("data", (chunk: Buffer) => {
      options.onStdout?.(chunk);
      onData(chunk);
    });
    child.stderr?.on("data", onData);

    const stop = (reason: "timeout" | "abort") => {
      if (exit !== null) return; // already ended on its own; only leftovers remain, handled on exit
      if (reason === "timeout") timedOut = true;
      else aborted = true;
      if (pid !== undefined) void terminateProcessGroup(pid);
    };
    const onAbort = () => stop("abort");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const limit = options.timeoutMs;
    const timer =
      Number.isFinite(limit) && limit > 0
        ? setTimeout(() => stop("timeout"), Math.min(limit, MAX_TIMER_MS))
        : undefined;

    const finish = (fields: Partial<RunCommandResult>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(closeTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) untrackProcessGroup(pid);
      resolve(result({ timedOut, aborted, ...fields }));
    };

    child.on("error", (error: NodeJS.ErrnoException) => {
      // Without a pid the program never started; otherwise this is a kill error and `close` still comes.
      if (pid === undefined) finish({ spawnError: `${error.code ?? "error"}: ${error.message}` });
    });
    let groupEnded: Promise<void> = Promise.resolve();
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (pid === undefined) return;
      // Grandchildren that outlive the command would hold the pipes open (and leak): end the group.
      groupEnded = terminateProcessGroup(pid, 500).then(() =>
        terminateSpawnLeftovers(markers.spawnId).then(() => {}),
      );
      void groupEnded.then(() => {
        if (settled) return;
        closeTimer = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish({ exitCode: code, signal });
        }, CLOSE_GRACE_MS);
      });
    });
    child.on("close", (code, signal) => {
      const ended = exit ?? { code, signal };
      void groupEnded.then(() => finish({ exitCode: ended.code, signal: ended.signal }));
    });
  });
}
