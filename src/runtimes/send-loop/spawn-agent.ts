/**
 * The spawn/stream loop every CLI runtime reuses: start the agent in its own process group, feed its
 * stdin, stream stdout lines to raw_output.jsonl and to the runtime's parser, enforce the idle and
 * wall timeouts, honour the abort signal, and leave no process of the group behind.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Writable } from "node:stream";
import { boxedCommand } from "../../sandbox/boxed-command.js";
import { boxForwarderArgv, startEgressProxy } from "../../sandbox/egress-proxy.js";
import type { SendSandbox } from "../../sandbox/send-sandbox.js";
import { findExecutable } from "../../util/find-executable.js";
import {
  childMarkers,
  processGroupAlive,
  signalProcessGroup,
  terminateProcessGroup,
  terminateSpawnLeftovers,
  trackProcessGroup,
  untrackProcessGroup,
} from "../../util/process-group.js";
import type { AgentSendObserver, AgentTimeouts, ProcessEnd } from "../runtime.js";
import { LIFELINE_FD, lifelineWanted, withLifeline } from "./lifeline.js";
import { type CappedLine, createLineSplitter } from "./line-splitter.js";
import { createRawOutputWriter } from "./raw-output-writer.js";
import { watchAgentProcess } from "./watch-agent-process.js";

/** What to run and where its output goes; `observer` receives process start and end. */
export interface SpawnAgentOptions {
  /** argv; `command[0]` is looked up on PATH. */
  command: string[];
  /** Where the agent starts: inside the box when `sandbox` is set. */
  cwd: string;
  /** The OS sandbox the agent runs in (absent: unboxed, held only by its lifeline). */
  sandbox?: SendSandbox | undefined;
  /** Set by `spawnAgent` itself: the egress proxy's socket the box's forwarder relays to. */
  throughEgressProxy?: string | undefined;
  /** Added to (and overriding) `process.env`. */
  env?: Record<string, string>;
  /** Written to the agent's stdin, which is then closed. */
  stdin: string;
  /** Every non-blank stdout line is appended here (parent folders are created). */
  rawOutputPath: string;
  timeouts: AgentTimeouts;
  signal?: AbortSignal;
  /** Called for each non-blank stdout line, in order, after it was queued for raw_output.jsonl. */
  onLine(line: string): void;
  /**
   * Rewrites each stdout line before it is stored and parsed (null drops it): for CLIs whose streams
   * repeat bulky state on every delta. Output still resets the idle timer before any rewrite.
   */
  transformLine?(line: string): string | null;
  observer: AgentSendObserver;
  /**
   * Bytes kept from the start and the end of a stdout line longer than both together, and the longest
   * word dropped at each cut (defaults `LINE_HEAD_BYTES`, `LINE_TAIL_BYTES`, `CUT_WORD_UNITS`); each
   * capped line is one `onLog` naming the bytes dropped.
   */
  lineCap?: { headBytes?: number; tailBytes?: number; cutWordUnits?: number };
}

/** How the process ended; `timedOut`, `aborted` and `spawnError` say why sssf ended it. */
export interface SpawnAgentOutcome {
  exitCode: number | null;
  signal: string | null;
  /** The last ~2 KB of stderr. */
  stderrTail: string;
  timedOut: "idle" | "wall" | null;
  aborted: boolean;
  /** Why the command could not be started (names the command), else null. */
  spawnError: string | null;
}

function rewriteLines(
  lines: string[],
  transform: (line: string) => string | null,
  log: (m: string) => void,
): string[] {
  const kept: string[] = [];
  for (const line of lines) {
    try {
      const rewritten = transform(line);
      if (rewritten !== null) kept.push(rewritten);
    } catch (error) {
      log(`stdout line rewrite failed: ${error instanceof Error ? error.message : String(error)}`);
      kept.push(line);
    }
  }
  return kept;
}

/** The trace note for one capped stdout line. */
export function cappedLineMessage(cap: CappedLine): string {
  return `stdout line of ${cap.lineBytes} bytes capped: ${cap.droppedBytes} bytes dropped (kept the first ${cap.headBytes} and the last ${cap.tailBytes})`;
}

const cappedLineDetails = (cap: CappedLine): Record<string, unknown> => ({
  line_bytes: cap.lineBytes,
  dropped_bytes: cap.droppedBytes,
  head_bytes: cap.headBytes,
  tail_bytes: cap.tailBytes,
});

interface LaunchPlan {
  argv: string[];
  /** The spawn's own cwd, on the host. */
  cwd: string;
  /** True when the argv starts the lifeline shell (its pipe is the fourth stdio entry). */
  lifeline: boolean;
}

/**
 * How the agent is started: through the lifeline shell (it ends the agent with sssf), inside its box
 * when it has one. A program that cannot be found is spawned as given, so the spawn fails the way it
 * always did, naming it.
 */
function launchPlan(options: SpawnAgentOptions, env: NodeJS.ProcessEnv, spawnId: string): LaunchPlan {
  const { command, sandbox } = options;
  const hostCwd = sandbox?.hostCwd ?? options.cwd;
  const resolved = findExecutable(command[0] ?? "", { cwd: hostCwd, env });
  if (resolved === null) return { argv: command, cwd: hostCwd, lifeline: false };
  const argv = [resolved, ...command.slice(1)];
  const inner = options.throughEgressProxy ? boxForwarderArgv(options.throughEgressProxy, argv) : argv;
  // The lifeline runs inside the box when there is one: bubblewrap's --die-with-parent misses a
  // sssf killed while the box is still being set up, and the lifeline's pipe is inherited through it.
  const lifeline = lifelineWanted();
  const guarded = lifeline ? withLifeline(inner, spawnId) : inner;
  const boxed = sandbox === undefined ? guarded : boxedCommand(sandbox, guarded, options.cwd, env);
  return { argv: boxed, cwd: hostCwd, lifeline };
}

function releaseLifeline(pipe: Writable | null | undefined): void {
  if (!pipe) return;
  pipe.on("error", () => {});
  pipe.end("done\n");
}

/** How long a SIGTERMed group gets before SIGKILL. */
export const KILL_GRACE_MS = 1500;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Runs one agent process to its end. Never rejects: spawn failures, timeouts and aborts are reported in
 * the outcome. Resolves only after the leader exited, every other process of its group was killed, and
 * every stdout line is written to `rawOutputPath`. An already-aborted signal resolves without spawning.
 */
export async function spawnAgent(options: SpawnAgentOptions): Promise<SpawnAgentOutcome> {
  const { sandbox } = options;
  const hosts = sandbox?.network;
  if (sandbox === undefined || hosts === undefined || hosts === "open" || hosts.length === 0)
    return spawnOnce(options);
  // A box that may reach some hosts only: no network of its own, and sssf's proxy as its one door.
  const refused = new Set<string>();
  const proxy = await startEgressProxy(hosts, (target) => {
    if (refused.has(target)) return;
    refused.add(target);
    try {
      options.observer.onLog?.(`network: refused ${target} (not in sandbox.network)`, {
        boundary: "network_refused",
        target,
      });
    } catch {
      // The observer's failure is not the send's.
    }
  });
  try {
    return await spawnOnce({
      ...options,
      sandbox: {
        ...sandbox,
        network: [],
        writable: [...sandbox.writable, { host: proxy.folder, box: proxy.folder }],
      },
      throughEgressProxy: proxy.socketPath,
    });
  } finally {
    await proxy.close();
  }
}

async function spawnOnce(options: SpawnAgentOptions): Promise<SpawnAgentOutcome> {
  const { command, observer } = options;
  const outcome: SpawnAgentOutcome = {
    exitCode: null,
    signal: null,
    stderrTail: "",
    timedOut: null,
    aborted: false,
    spawnError: null,
  };
  if (options.signal?.aborted) return { ...outcome, aborted: true };
  const program = command[0];
  if (program === undefined || program === "") return { ...outcome, spawnError: "the command is empty" };
  const log = (message: string, details?: Record<string, unknown>) => {
    try {
      observer.onLog?.(message, details);
    } catch {
      // An observer that throws must not take the agent call down with it.
    }
  };

  const raw = createRawOutputWriter(options.rawOutputPath, log);
  const transform = options.transformLine;
  const splitter = createLineSplitter(
    (received) => {
      const lines = transform === undefined ? received : rewriteLines(received, transform, log);
      if (lines.length === 0) return;
      raw.write(lines);
      for (const line of lines) {
        try {
          options.onLine(line);
        } catch (error) {
          log(`stdout line handler failed: ${describe(error)}`);
        }
      }
    },
    {
      ...options.lineCap,
      onCapped: (cap) => log(cappedLineMessage(cap), cappedLineDetails(cap)),
    },
  );

  // Marked so that processes which leave the group (`setsid`) are still found and ended.
  const markers = childMarkers();
  const env = { ...process.env, ...options.env, ...markers.env };
  const launch = launchPlan(options, env, markers.spawnId);
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(launch.argv[0] ?? program, launch.argv.slice(1), {
      cwd: launch.cwd,
      env,
      detached: true,
      stdio: launch.lifeline ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
    }) as ChildProcessWithoutNullStreams;
  } catch (error) {
    await raw.close();
    return { ...outcome, spawnError: `could not start \`${command.join(" ")}\`: ${describe(error)}` };
  }
  const pid = child.pid;
  if (pid === undefined) {
    const error = await new Promise<unknown>((resolve) => child.once("error", resolve));
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
    await raw.close();
    const where = existsSync(launch.cwd)
      ? `in ${launch.cwd}`
      : `because its cwd ${launch.cwd} does not exist`;
    return { ...outcome, spawnError: `could not start \`${program}\` ${where}: ${describe(error)}` };
  }

  trackProcessGroup(pid);
  try {
    observer.onProcessStart?.({ pid, command, cwd: launch.cwd, startedAt: new Date() });
  } catch (error) {
    log(`onProcessStart failed: ${describe(error)}`);
  }
  // The agent may exit without reading its stdin; the resulting EPIPE is not a failure.
  child.stdin.on("error", () => {});
  child.stdin.end(options.stdin);

  let killing: Promise<void> | null = null;
  const kill = (reason: "idle" | "wall" | "abort") => {
    if (killing !== null) return;
    if (reason === "abort") outcome.aborted = true;
    else outcome.timedOut = reason;
    killing = terminateProcessGroup(pid, KILL_GRACE_MS);
  };
  child.stdout.setEncoding("utf8");
  // The leader is gone: the lifeline's watcher leaves without killing anything (registered first, so
  // it hears this before the watch sweeps the group).
  if (launch.lifeline) child.once("exit", () => releaseLifeline(child.stdio[LIFELINE_FD] as Writable | null));
  const ended = watchAgentProcess({ child, timeouts: options.timeouts, signal: options.signal, kill });
  child.stdout.on("data", (chunk: string) => {
    splitter.push(chunk);
    // Backpressure: an agent that prints faster than raw_output.jsonl is written waits in its pipe,
    // not in sssf's memory.
    if (raw.backlogged(() => child.stdout.resume())) child.stdout.pause();
  });

  const end = await ended;
  splitter.end();
  if (killing !== null) await killing;
  // Whatever ended the leader, nothing it started may outlive the call.
  if (processGroupAlive(pid)) signalProcessGroup(pid, "SIGKILL");
  await terminateSpawnLeftovers(markers.spawnId);
  untrackProcessGroup(pid);
  await raw.close();

  outcome.exitCode = end.exitCode;
  outcome.signal = end.signal;
  outcome.stderrTail = end.stderrTail;
  const status: ProcessEnd["status"] =
    outcome.timedOut !== null ? "timeout" : outcome.aborted || end.signal !== null ? "killed" : "exited";
  try {
    observer.onProcessEnd?.({ pid, ...end, status, endedAt: new Date() });
  } catch (error) {
    log(`onProcessEnd failed: ${describe(error)}`);
  }
  return outcome;
}
