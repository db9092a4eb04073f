/**
 * Watches a spawned agent until its stdio closes: idle and wall timers, the abort signal, the stderr
 * tail, and the sweep that kills whatever the leader left running in its group when it exits.
 */

import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { processGroupAlive, signalProcessGroup } from "../../util/process-group.js";
import { redactedTail } from "../../util/secrets/redacted-tail.js";
import type { AgentTimeouts } from "../runtime.js";

/** The child to watch and the callback that kills its group. */
export interface WatchAgentProcessOptions {
  /** A detached child whose stdout encoding is already set. */
  child: ChildProcessWithoutNullStreams;
  timeouts: AgentTimeouts;
  signal?: AbortSignal | undefined;
  /** Asked (possibly more than once) to kill the group; the watcher keeps waiting for the exit. */
  kill(reason: "idle" | "wall" | "abort"): void;
}

/** The leader's exit and what it said on stderr. */
export interface AgentProcessEnd {
  exitCode: number | null;
  signal: string | null;
  /** The last ~2 KB of stderr, secrets redacted before the cut. */
  stderrTail: string;
}

/** Bytes of stderr kept for error messages. */
export const STDERR_TAIL_CHARS = 2048;
/** How long stdio may stay open after the leader exited and its group was killed. */
const CLOSE_GRACE_MS = 2000;
/** setTimeout's largest delay; longer timeouts would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;

const enabled = (ms: number): boolean => Number.isFinite(ms) && ms > 0;

/**
 * Resolves when the child exited and its stdio closed (or `CLOSE_GRACE_MS` after the exit, when some
 * process outside the group still holds the pipes). Never rejects.
 */
export function watchAgentProcess(options: WatchAgentProcessOptions): Promise<AgentProcessEnd> {
  const { child, timeouts, signal, kill } = options;
  const pid = child.pid as number;
  return new Promise((resolve) => {
    let lastOutputAt = Date.now();
    let stderr = "";
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let idleTimer: NodeJS.Timeout | undefined;
    let wallTimer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;
    let done = false;

    const touch = () => {
      lastOutputAt = Date.now();
    };
    child.stdout.on("data", touch);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      touch();
      stderr += chunk;
      if (stderr.length > 8 * STDERR_TAIL_CHARS) stderr = stderr.slice(-2 * STDERR_TAIL_CHARS);
    });

    // One timer re-armed for the remaining quiet time, instead of a reset on every chunk.
    const armIdle = (delay: number) => {
      idleTimer = setTimeout(
        () => {
          const quiet = Date.now() - lastOutputAt;
          if (quiet >= timeouts.idleMs) kill("idle");
          else armIdle(timeouts.idleMs - quiet);
        },
        Math.min(delay, MAX_DELAY_MS),
      );
    };
    if (enabled(timeouts.idleMs)) armIdle(timeouts.idleMs);
    if (enabled(timeouts.wallMs)) {
      wallTimer = setTimeout(() => kill("wall"), Math.min(timeouts.wallMs, MAX_DELAY_MS));
    }
    const onAbort = () => kill("abort");
    signal?.addEventListener("abort", onAbort, { once: true });

    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(idleTimer);
      clearTimeout(wallTimer);
      clearTimeout(closeTimer);
      signal?.removeEventListener("abort", onAbort);
      resolve({ exitCode, signal: exitSignal, stderrTail: redactedTail(stderr, STDERR_TAIL_CHARS) });
    };
    child.once("exit", (code, killedBy) => {
      exitCode = code;
      exitSignal = killedBy;
      clearTimeout(idleTimer);
      clearTimeout(wallTimer);
      // A background grandchild would keep stdout open (and running) forever.
      if (processGroupAlive(pid)) signalProcessGroup(pid, "SIGKILL");
      closeTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, CLOSE_GRACE_MS);
    });
    child.once("close", finish);
  });
}
