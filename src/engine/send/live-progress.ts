/**
 * Live progress of one send: the agent's streamed text and the tool calls it starts go to the reporter
 * as they happen, and to the trace as `agent_text` (throttled) and `tool_start` events, for a live
 * tail in another terminal (`sssf tail`, the UI).
 */

import { addUsage, emptyUsage, type ToolStart, type Usage } from "../../runtimes/runtime.js";
import type { EventRow, PhaseRow } from "../../trace/events.js";
import type { CallContext } from "../call-context.js";

/** At most one `agent_text` event per phase per this many milliseconds (plus the last at the send's end). */
export const AGENT_TEXT_INTERVAL_MS = 500;
/** Longest line kept, in characters: a line is for a glance; the reply itself is in the envelope. */
const MAX_LINE_CHARS = 400;
/** How much of the streamed text is kept to find its latest line. */
const TAIL_CHARS = 4000;

// Per phase, not per send: a correction's send continues the phase's throttle.
const lastTextEventAt = new WeakMap<PhaseRow, number>();

/** The last line of `text` that holds more than whitespace, trimmed and cut; "" when there is none. */
export function latestLine(text: string): string {
  const lines = text.split(/\r?\n|\r/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] ?? "").trim();
    if (line !== "") return line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line;
  }
  return "";
}

/** What a send hands the runtime for live progress, and closes once the runtime returned. */
export interface LiveProgress {
  onText(text: string): void;
  onToolStart(call: ToolStart): void;
  /** The send's priced usage as it streams (each piece once). */
  onUsage(usage: Usage): void;
  /** Writes the pending `agent_text` event, and tells the reporter the send's usage is in the row now. */
  finish(): void;
}

/**
 * Live progress for the send whose span is `span`. Never throws: a reporter or trace failure is not
 * the send's.
 */
export function liveProgress(context: CallContext, span: EventRow): LiveProgress {
  const { run, agent, phase } = context;
  const row = phase.row;
  const name = agent.config.name;
  let tail = "";
  let shown = "";
  let pending: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  const soFar = emptyUsage();
  const safely = (report: () => void) => {
    try {
      report();
    } catch {
      // Live progress is a courtesy: its failure is not the send's.
    }
  };
  const writeText = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (pending === null) return;
    const text = pending;
    pending = null;
    lastTextEventAt.set(row, Date.now());
    safely(() =>
      run.trace.event({
        type: "agent_text",
        name: text.length > 120 ? `${text.slice(0, 119)}…` : text,
        phaseId: row.id,
        parentId: span.id,
        agent: name,
        payload: { text },
      }),
    );
  };
  return {
    onText(text) {
      tail = (tail + text).slice(-TAIL_CHARS);
      const line = latestLine(tail);
      if (line === "" || line === shown) return;
      shown = line;
      safely(() => run.reporter.agentText?.(row, line));
      pending = line;
      const wait = (lastTextEventAt.get(row) ?? 0) + AGENT_TEXT_INTERVAL_MS - Date.now();
      if (wait <= 0) writeText();
      else if (timer === null) {
        timer = setTimeout(writeText, wait);
        timer.unref();
      }
    },
    onToolStart(call) {
      safely(() =>
        run.trace.event({
          type: "tool_start",
          name: call.name,
          phaseId: row.id,
          parentId: span.id,
          agent: name,
          startedAt: call.startedAt,
          payload: { tool: call.tool, args: call.args },
        }),
      );
      safely(() => run.reporter.toolStarted?.(row, call));
    },
    onUsage(usage) {
      addUsage(soFar, usage);
      safely(() => run.reporter.sendUsage?.(row, { ...soFar }));
    },
    finish() {
      writeText();
      safely(() => run.reporter.sendUsage?.(row, emptyUsage()));
    },
  };
}
