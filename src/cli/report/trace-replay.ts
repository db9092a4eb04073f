/**
 * A run told again from its trace rows (`sssf tail`, the cluster's run): each event becomes the call
 * the run made on its reporter, so the terminal reporter prints the lines the run printed.
 */

import type { ToolCall, ToolStart } from "../../runtimes/runtime.js";
import { failedTestNames, type RunReporter, type SuiteOutput } from "../../session/reporter.js";
import type { EventRow, PhaseRow, SessionRow } from "../../trace/events.js";

function payloadOf(event: EventRow): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(event.payload);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function toolCallOf(event: EventRow, payload: Record<string, unknown>): ToolCall {
  const startedAt = new Date(event.started_at);
  return {
    tool: typeof payload.tool === "string" ? payload.tool : event.name,
    name: event.name,
    args: payload.args,
    result: typeof payload.result === "string" ? payload.result : "",
    ok: event.ok !== 0,
    startedAt,
    endedAt: event.ended_at === null ? startedAt : new Date(event.ended_at),
  };
}

function toolStartOf(event: EventRow, payload: Record<string, unknown>): ToolStart {
  return {
    tool: typeof payload.tool === "string" ? payload.tool : event.name,
    name: event.name,
    args: payload.args,
    startedAt: new Date(event.started_at),
  };
}

/**
 * What the run said on its terminal for a `log` or `error` event: the lines in its payload's `shown`
 * (the messages the run told its reporter with it, none for a record the run kept to the trace); an
 * error without them (a reaper's, a cluster worker's) as `error: <name>`.
 */
function shownLines(event: EventRow, payload: Record<string, unknown>): string[] {
  const shown = payload.shown;
  if (Array.isArray(shown)) return shown.filter((line): line is string => typeof line === "string");
  return event.type === "error" ? [`error: ${event.name}`] : [];
}

/** A quality suite's outcome from its `log` event (`payload.envelope` is its `VerifyOutput`). */
function suiteOutputOf(payload: Record<string, unknown>): SuiteOutput | null {
  const envelope = payload.envelope as Record<string, unknown> | undefined;
  if (typeof envelope !== "object" || envelope === null) return null;
  const { suite, passed, output_tail: tail } = envelope;
  if (typeof suite !== "string" || typeof passed !== "boolean" || typeof tail !== "string") return null;
  const logPath = typeof payload.log_path === "string" ? payload.log_path : null;
  return { suite, passed, tail, logPath, failedTests: failedTestNames(envelope) };
}

/** Tells a reporter a run from its trace: the session, each event in order, the end. */
export interface TraceReplay {
  sessionStarted(session: SessionRow, sessionDir: string): void;
  /** One event, with its phase as it stands now (for phase lines and tags). */
  event(event: EventRow, phase: PhaseRow | undefined): void;
  finished(session: SessionRow, phases: PhaseRow[]): void;
}

/**
 * The reporter calls a run made, from its trace: phase starts and ends, replayed phases, tool calls
 * (started and ended), the agent's text, a failing suite's output, and the log lines the run showed.
 * What only the live view shows (the tool in flight, the agent's text) is told as such.
 */
export function replayTrace(reporter: RunReporter): TraceReplay {
  // Phases started and not ended: a run whose sssf died never ends them; its closing event does.
  const open = new Map<string, PhaseRow>();
  return {
    sessionStarted: (session, sessionDir) => reporter.sessionStarted(session, sessionDir, false),
    event(event, phase) {
      const payload = payloadOf(event);
      switch (event.type) {
        case "phase_start":
          if (phase === undefined) return;
          open.set(phase.id, phase);
          reporter.phaseStarted(phase);
          return;
        case "phase_end":
          if (phase === undefined) return;
          open.delete(phase.id);
          reporter.phaseEnded(phase);
          return;
        case "tool_start":
          if (phase !== undefined) reporter.toolStarted?.(phase, toolStartOf(event, payload));
          return;
        case "tool_call":
          if (phase !== undefined) reporter.toolCall(phase, toolCallOf(event, payload));
          return;
        case "agent_text":
          if (phase !== undefined)
            reporter.agentText?.(phase, typeof payload.text === "string" ? payload.text : event.name);
          return;
        case "log":
        case "rate_limited":
        case "fallback":
        case "escalation":
        case "error": {
          // The run was closed as interrupted (its sssf died, or a cluster worker takes it over): its
          // open phases end here, the reason follows as the error's line.
          if (event.type === "error" && payload.code === "interrupted" && event.phase_id === null) {
            for (const row of open.values())
              reporter.phaseEnded({ ...row, status: "interrupted", error: null, duration_ms: null });
            open.clear();
          }
          if (payload.replayed === true && phase !== undefined) {
            reporter.phaseReplayed?.(phase);
            return;
          }
          const suite = phase === undefined ? null : suiteOutputOf(payload);
          if (suite !== null && phase !== undefined) reporter.suiteOutput?.(phase, suite);
          for (const line of shownLines(event, payload)) reporter.log(line, phase);
          return;
        }
      }
    },
    finished: (session, phases) => reporter.finished(session, phases),
  };
}
