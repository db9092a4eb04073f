/**
 * Live progress of one send: the agent's streamed text and the tool calls it starts go to the reporter
 * as they happen, and to the trace as `agent_text` (throttled) and `tool_start` events, for a live
 * tail in another terminal (`sssf tail`, the UI).
 */

import { addUsage, emptyUsage, type ToolStart, type Usage } from "../../runtimes/runtime.js";
import type { EventRow, PhaseRow } from "../../trace/events.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import type { CallContext } from "../call-context.js";

/** At most one `agent_text` event per phase per this many milliseconds (plus the last at the send's end). */
export const AGENT_TEXT_INTERVAL_MS = 500;
/** Longest line kept, in characters: a line is for a glance; the reply itself is in the envelope. */
const MAX_LINE_CHARS = 400;
/** How much of the streamed text is kept to find its latest line. */
const TAIL_CHARS = 4000;

// Per phase, not per send: a correction's send continues the phase's throttle.
const lastTextEventAt = new WeakMap<PhaseRow, number>();

const WHITESPACE = /\s/;

/** Where the run of non-whitespace that ends `text` starts (`text.length` when it ends in whitespace). */
function lastWordStart(text: string): number {
  let start = text.length;
  while (start > 0 && !WHITESPACE.test(text[start - 1] ?? " ")) start--;
  return start;
}

/** Where the run of non-whitespace that starts `text` ends. */
function firstWordEnd(text: string): number {
  let end = 0;
  while (end < text.length && !WHITESPACE.test(text[end] ?? " ")) end++;
  return end;
}

/** How much of the streamed text {@link latestLine} may show. */
export interface LatestLineOptions {
  /** The agent is still streaming: its last word may be the first pieces of a secret. */
  streaming?: boolean;
  /** The text's start was cut off: its first word may be the last pieces of a secret. */
  cutAtStart?: boolean;
}

/**
 * The last line of `text` that holds more than whitespace, redacted, trimmed and cut; "" when there is
 * none. Only whole words count: the word still streaming and a word cut off at the start are left out
 * (the redaction knows a secret whole, not its first or last pieces), and the line is redacted before it
 * is cut.
 */
export function latestLine(text: string, options: LatestLineOptions = {}): string {
  const settled = options.streaming ? text.slice(0, lastWordStart(text)) : text;
  const lines = settled.split(/\r?\n|\r/);
  for (let i = lines.length - 1; i >= 0; i--) {
    let line = lines[i] ?? "";
    if (i === 0 && options.cutAtStart) line = line.slice(firstWordEnd(line));
    line = line.trim();
    if (line === "") continue;
    const redacted = redactSecrets(line);
    return redacted.length > MAX_LINE_CHARS ? redacted.slice(0, MAX_LINE_CHARS) : redacted;
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
  let cutAtStart = false;
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
  return {
    onText(text) {
      const joined = tail + text;
      cutAtStart ||= joined.length > TAIL_CHARS;
      tail = joined.slice(-TAIL_CHARS);
      if (!show(latestLine(tail, { streaming: true, cutAtStart }))) return;
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
      // The stream is over: its last word is whole now.
      show(latestLine(tail, { cutAtStart }));
      writeText();
      safely(() => run.reporter.sendUsage?.(row, emptyUsage()));
    },
  };
}
