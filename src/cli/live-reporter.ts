import { emptyUsage, type ToolCall, type ToolStart, type Usage } from "../runtimes/runtime.js";
import type { RunReporter } from "../session/reporter.js";
import type { PhaseRow } from "../trace/events.js";
import { redactSecrets } from "../util/secrets/redact.js";
import { terminalSafe } from "../util/terminal-text.js";
import { agentText, formatCost, formatTokens, paint } from "./format.js";
import { LiveBoard, type LiveBoardOptions, type LiveStream } from "./live-board.js";
import { createTerminalReporter } from "./terminal-reporter.js";

/** `12s`, `2m05s`, `1h02m`: a running phase's age, whole seconds. */
export function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

interface LivePhase {
  row: PhaseRow;
  startedAt: number;
  /** The send in flight's usage so far (the phase's row holds the sends already done). */
  sending: Usage;
  /** Tool calls started and not yet ended, oldest first. */
  tools: ToolStart[];
  /** The agent's latest line, raw. */
  text: string;
}

/** A run reporter that also draws the live area; `redraw` draws it now (tests, without the timer). */
export interface LiveReporter extends RunReporter {
  redraw(): void;
}

/** Options of {@link createLiveReporter}. */
export interface LiveReporterOptions {
  /** Frame interval in ms (default 100); 0 draws only on changes and `redraw`. */
  intervalMs?: number;
  /** The clock for elapsed times (default `Date.now`). */
  now?: () => number;
}

/**
 * The terminal reporter with a live area under its lines: per running phase a spinner line (number,
 * name, owner, elapsed time, tokens and cost so far, the tool call in flight) and the agent's latest
 * text line, each cut to the terminal's width. Every permanent line is the plain reporter's, printed
 * above the live area. Agent text is redacted and made terminal-safe (`agentText`), like every line of
 * the plain reporter.
 */
export function createLiveReporter(
  out: NodeJS.WriteStream | LiveStream,
  cwd: string,
  options: LiveReporterOptions = {},
): LiveReporter {
  const stream = out as NodeJS.WriteStream;
  const style: LiveBoardOptions["style"] = {
    spinner: (text) => paint(stream, "cyan", text),
    detail: (text) => paint(stream, "dim", text),
  };
  const board = new LiveBoard(out, {
    style,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
  });
  // The plain reporter writes through the board: its lines go above the live area.
  const permanent = Object.create(out, {
    write: {
      value: (chunk: string) => {
        board.print(String(chunk));
        return true;
      },
    },
  }) as NodeJS.WriteStream;
  const plain = createTerminalReporter(permanent, cwd);
  const now = options.now ?? Date.now;
  const phases = new Map<string, LivePhase>();
  const safe = (text: string) => terminalSafe(redactSecrets(text));

  const title = (phase: LivePhase): string => {
    const { row } = phase;
    const who = row.kind === "agent" ? `agent ${safe(row.owner)}` : safe(row.kind);
    const parts = [
      `${String(row.number).padStart(2, "0")} ${safe(row.name)} (${who}) ${elapsedText(now() - phase.startedAt)}`,
    ];
    const input = row.input_tokens + phase.sending.inputTokens;
    const output = row.output_tokens + phase.sending.outputTokens;
    const cost = row.cost_usd + phase.sending.costUsd;
    if (input !== 0 || output !== 0 || cost !== 0)
      parts.push(`${formatTokens(input)} in / ${formatTokens(output)} out · ${formatCost(cost)}`);
    const tool = phase.tools.at(-1);
    if (tool !== undefined) parts.push(`⚙ ${agentText(tool.name, 100)}`);
    return parts.join(" · ");
  };

  const live = (phase: PhaseRow) => phases.get(phase.id);

  return {
    sessionStarted: plain.sessionStarted,
    phaseReplayed: (phase) => plain.phaseReplayed?.(phase),
    phaseStarted(phase) {
      plain.phaseStarted(phase);
      const started = Date.parse(phase.started_at);
      const entry: LivePhase = {
        row: phase,
        startedAt: Number.isNaN(started) ? now() : started,
        sending: emptyUsage(),
        tools: [],
        text: "",
      };
      phases.set(phase.id, entry);
      board.add(phase.id, {
        title: () => title(entry),
        detail: () => (entry.text === "" ? "" : agentText(entry.text, 300)),
      });
    },
    phaseEnded(phase) {
      phases.delete(phase.id);
      board.end(phase.id);
      plain.phaseEnded(phase);
    },
    toolStarted(phase, call) {
      const entry = live(phase);
      if (entry === undefined) return;
      entry.tools.push(call);
      board.draw();
    },
    toolCall(phase: PhaseRow, call: ToolCall) {
      const entry = live(phase);
      if (entry !== undefined) {
        // Pair by tool (calls may end out of order); a call never announced removes nothing.
        const index = entry.tools.findIndex((open) => open.tool === call.tool);
        if (index >= 0) entry.tools.splice(index, 1);
      }
      plain.toolCall(phase, call);
    },
    agentText(phase, line) {
      const entry = live(phase);
      if (entry !== undefined) entry.text = line;
    },
    sendUsage(phase, soFar) {
      const entry = live(phase);
      if (entry !== undefined) entry.sending = soFar;
    },
    log: (message, phase) => plain.log(message, phase),
    finished(session, rows, end) {
      board.stop();
      plain.finished(session, rows, end);
    },
    redraw: () => board.draw(),
  };
}
