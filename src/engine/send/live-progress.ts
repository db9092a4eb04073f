/**
 * Live progress of one send: the agent's streamed text and the tool calls it starts go to the reporter
 * as they happen, and to the trace as `agent_text` (throttled) and `tool_start` events, for a live
 * tail in another terminal (`sssf tail`, the UI).
 */

import { addUsage, emptyUsage, type ToolStart, type Usage } from "../../runtimes/runtime.js";
import type { EventRow, PhaseRow } from "../../trace/events.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import type { CallContext } from "../call-context.js";
import { replyLines } from "./reply-lines.js";

/** At most one `agent_text` event per phase per this many milliseconds (plus the last at the send's end). */
export const AGENT_TEXT_INTERVAL_MS = 500;
/** Longest line shown, in characters: a line is for a glance; the reply itself is in the envelope. */
const MAX_LINE_CHARS = 400;

// Per phase, not per send: a correction's send continues the phase's throttle.
const lastTextEventAt = new WeakMap<PhaseRow, number>();

/** A whole line of the agent's text as shown: redacted first (a secret is known whole), then cut. */
function shownLine(line: string): string {
  const redacted = redactSecrets(line);
  return redacted.length > MAX_LINE_CHARS ? redacted.slice(0, MAX_LINE_CHARS) : redacted;
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
  const show = (line: string): boolean => {
    if (line === "" || line === shown) return false;
    shown = line;
    safely(() => run.reporter.agentText?.(row, line));
    pending = line;
    return true;
  };
  // Whole lines only, the reply's closing envelope left out (reply-lines.ts).
  const lines = replyLines((line) => {
    if (!show(shownLine(line))) return;
    const wait = (lastTextEventAt.get(row) ?? 0) + AGENT_TEXT_INTERVAL_MS - Date.now();
    if (wait <= 0) writeText();
    else if (timer === null) {
      timer = setTimeout(writeText, wait);
      timer.unref();
    }
  });
  return {
    onText(text) {
      safely(() => lines.push(text));
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
      // The send is over: its last line is whole now, and an envelope ending it is known.
      safely(() => lines.end());
      writeText();
      safely(() => run.reporter.sendUsage?.(row, emptyUsage()));
    },
  };
}
