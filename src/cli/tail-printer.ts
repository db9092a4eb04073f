import type { ToolCall } from "../runtimes/runtime.js";
import type { EventRow, PhaseRow, SessionRow } from "../trace/events.js";
import { redactSecrets } from "../util/secrets/redact.js";
import { terminalSafe } from "../util/terminal-text.js";
import { agentText, paint } from "./format.js";
import { createTerminalReporter } from "./terminal-reporter.js";

const pad = (n: number) => String(n).padStart(2, "0");

function payloadOf(event: EventRow): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(event.payload);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function toolCallOf(event: EventRow): ToolCall {
  const payload = payloadOf(event);
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

/** Prints trace rows as the terminal reporter prints a run. */
export interface TailPrinter {
  sessionStarted(session: SessionRow, sessionDir: string): void;
  /** One event, with its phase as it stands now (for phase lines and tags). */
  event(event: EventRow, phase: PhaseRow | undefined): void;
  finished(session: SessionRow, phases: PhaseRow[]): void;
}

/**
 * `sssf tail`'s lines: the plain terminal reporter's (phase start and end, tool calls, logs, the
 * banner), errors as log lines, and the agent's text lines (`agent_text` events) as `   › text`,
 * redacted and made terminal-safe like every agent line.
 */
export function createTailPrinter(out: NodeJS.WriteStream, cwd: string): TailPrinter {
  const plain = createTerminalReporter(out, cwd);
  const safe = (text: string) => terminalSafe(redactSecrets(text));
  const running = new Set<string>();
  const tag = (phase: PhaseRow | undefined) =>
    phase && running.size > 1 ? `${paint(out, "cyan", `[${pad(phase.number)} ${safe(phase.name)}]`)} ` : "";
  return {
    sessionStarted: (session, sessionDir) => plain.sessionStarted(session, sessionDir, false),
    event(event, phase) {
      switch (event.type) {
        case "phase_start":
          if (phase === undefined) return;
          running.add(phase.id);
          plain.phaseStarted(phase);
          return;
        case "phase_end":
          if (phase === undefined) return;
          running.delete(phase.id);
          plain.phaseEnded(phase);
          return;
        case "tool_call":
          if (phase !== undefined) plain.toolCall(phase, toolCallOf(event));
          return;
        case "log":
          plain.log(event.name, phase);
          return;
        case "error":
          plain.log(`error: ${event.name}`, phase);
          return;
        case "agent_text": {
          const text = payloadOf(event).text;
          const line = typeof text === "string" ? text : event.name;
          out.write(`   ${tag(phase)}${paint(out, "dim", `› ${agentText(line, 200)}`)}\n`);
          return;
        }
      }
    },
    finished: (session, phases) => plain.finished(session, phases),
  };
}
