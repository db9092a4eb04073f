/**
 * The shared send loop of the runtimes that drive a real agent CLI (pi, claude_code, codex, gemini,
 * opencode). A runtime describes one invocation (argv, stdin, env, a stream parser); this module runs
 * it through `spawnAgent` and decides success from the stream and the exit together, never from the
 * exit code alone.
 */

import { formatDuration } from "../../util/format-duration.js";
import {
  type AgentSendObserver,
  type AgentSendRequest,
  type AgentSendResult,
  emptyUsage,
  type SendErrorKind,
  type Usage,
} from "../runtime.js";
import { classifyRateLimit, type RateLimitFinding, rateLimitResultFields } from "./rate-limit.js";
import { type SpawnAgentOutcome, spawnAgent } from "./spawn-agent.js";

/** What a CLI's event stream said about one send, once the process ended. */
export interface CliStreamResult {
  /** The final assistant message, or null when the stream ended without one. */
  text: string | null;
  /** An error the stream itself reported (API error, refused request), whatever the exit code. */
  error?: string | undefined;
  /** A more specific kind for `error` (default `agent_error`). */
  errorKind?: SendErrorKind | undefined;
  /**
   * A rate limit or spent quota the stream's structured events said (the runtime's own recogniser);
   * without one, the stream's `error` and then the stderr tail go through `classifyRateLimit`.
   */
  rateLimit?: RateLimitFinding | undefined;
  /** The CLI's own id for the conversation (thread id, session id), when it has one. */
  nativeSessionId?: string | undefined;
  usage: Usage;
  contextTokens: number | null;
}

/** A stateful parser of one send's stdout lines; it reports tool calls and usage as they complete. */
export interface CliStreamParser {
  line(line: string): void;
  /** Called once, after the process ended and every line was parsed. */
  finish(): CliStreamResult;
}

/** One invocation of a CLI. */
export interface CliInvocation {
  command: string[];
  /** Written to stdin, which is then closed (prompts travel here or in files, never in argv). */
  stdin: string;
  /** Added to the environment: telemetry and auto-update switches, endpoint settings. */
  env: Record<string, string>;
  parser: CliStreamParser;
  /** Rewrites stdout lines before they are stored and parsed (see `SpawnAgentOptions.transformLine`). */
  transformLine?: (line: string) => string | null;
  /** Runs after the process ended (removes temporary prompt files). */
  cleanup?: () => void;
}

const withStderr = (message: string, stderrTail: string): string => {
  const tail = stderrTail.trim();
  return tail === "" ? message : `${message}; stderr: ${tail.slice(-1500)}`;
};

/** A failure's kind, message and, for a rate limit, its hint. */
interface CliFailure {
  kind: SendErrorKind;
  message: string;
  rateLimit?: RateLimitFinding;
}

/**
 * A rate limit behind a failure the stream or the exit reported: the parser's own finding first, then
 * the stream's error text, then the stderr tail (a CLI that prints its API error there and exits 1).
 */
function rateLimitOf(stream: CliStreamResult, stderrTail: string): RateLimitFinding | null {
  if (stream.rateLimit !== undefined) return stream.rateLimit;
  if (stream.error !== undefined && (stream.errorKind === undefined || stream.errorKind === "agent_error")) {
    const found = classifyRateLimit(stream.error);
    if (found !== null) return found;
  }
  return classifyRateLimit(stderrTail.slice(-4000));
}

function failureOf(
  request: AgentSendRequest,
  label: string,
  outcome: SpawnAgentOutcome,
  stream: CliStreamResult,
): CliFailure | null {
  const who = `agent ${request.agent} (${label})`;
  if (outcome.spawnError !== null) return { kind: "spawn_failed", message: `${who}: ${outcome.spawnError}` };
  if (outcome.aborted) return { kind: "aborted", message: `${who} was aborted; killed its process group` };
  if (outcome.timedOut === "idle") {
    const message = `${who} produced no output for ${formatDuration(request.timeouts.idleMs)} (idle timeout); killed its process group`;
    return { kind: "idle_timeout", message: withStderr(message, outcome.stderrTail) };
  }
  if (outcome.timedOut === "wall") {
    const message = `${who} ran longer than ${formatDuration(request.timeouts.wallMs)} (wall timeout); killed its process group`;
    return { kind: "wall_timeout", message: withStderr(message, outcome.stderrTail) };
  }
  if (stream.error !== undefined || (outcome.exitCode !== 0 && stream.text === null)) {
    const limited = rateLimitOf(stream, outcome.stderrTail);
    if (limited !== null) {
      const what = limited.kind === "usage_limit" ? "usage limit reached" : "rate limited";
      const detail = stream.error ?? `exited with code ${outcome.exitCode}`;
      return {
        kind: limited.kind,
        message: withStderr(`${who}: ${what}: ${detail}`, outcome.stderrTail),
        rateLimit: limited,
      };
    }
  }
  if (stream.error !== undefined) {
    return {
      kind: stream.errorKind ?? "agent_error",
      message: withStderr(`${who}: ${stream.error}`, outcome.stderrTail),
    };
  }
  if (outcome.exitCode !== 0) {
    const how =
      outcome.exitCode === null ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
    return { kind: "exit_nonzero", message: withStderr(`${who} ${how}`, outcome.stderrTail) };
  }
  if (stream.text === null) {
    return {
      kind: "no_result",
      message: withStderr(`${who} exited 0 without a final assistant message`, outcome.stderrTail),
    };
  }
  return null;
}

/**
 * Runs one CLI invocation and returns the send's result. Never throws: a parser that throws on a line
 * is treated as a malformed line (the line stays in raw_output.jsonl).
 */
export async function runCliSend(
  request: AgentSendRequest,
  observer: AgentSendObserver,
  label: string,
  invocation: CliInvocation,
): Promise<AgentSendResult> {
  const outcome = await spawnAgent({
    command: invocation.command,
    cwd: request.cwd,
    sandbox: request.sandbox,
    env: { ...invocation.env, ...request.env },
    stdin: invocation.stdin,
    rawOutputPath: request.rawOutputPath,
    timeouts: request.timeouts,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(invocation.transformLine === undefined ? {} : { transformLine: invocation.transformLine }),
    onLine(line) {
      try {
        invocation.parser.line(line);
      } catch {
        // A line the parser cannot read is kept in raw_output.jsonl and otherwise ignored.
      }
    },
    observer,
  });
  try {
    invocation.cleanup?.();
  } catch {
    // Temporary files that cannot be removed are harmless.
  }
  const stream = invocation.parser.finish();
  const failure = failureOf(request, label, outcome, stream);
  const common = {
    text: stream.text ?? "",
    usage: stream.usage,
    contextTokens: stream.contextTokens,
    nativeSessionId: stream.nativeSessionId,
    exitCode: outcome.exitCode,
  };
  if (failure === null) return { ok: true, ...common };
  const hint = failure.rateLimit === undefined ? {} : rateLimitResultFields(failure.rateLimit);
  return { ok: false, ...common, errorKind: failure.kind, error: failure.message, ...hint };
}

/** A send refused before anything was spawned (bad tool name, unknown model, missing binary). */
export function refuseSend(
  request: AgentSendRequest,
  label: string,
  kind: SendErrorKind,
  message: string,
): AgentSendResult {
  return {
    ok: false,
    text: "",
    usage: emptyUsage(),
    contextTokens: null,
    errorKind: kind,
    error: `agent ${request.agent} (${label}): ${message}`,
    exitCode: null,
  };
}

/** Puts a note in the trace; an observer that throws is not the send's failure. */
export function noteToObserver(observer: AgentSendObserver, message: string): void {
  try {
    observer.onLog?.(message);
  } catch {
    // The observer's failure is not the send's.
  }
}
