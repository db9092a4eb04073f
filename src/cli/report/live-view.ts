import { emptyUsage, type ToolStart, type Usage } from "../../runtimes/runtime.js";
import type { RunReporter } from "../../session/reporter.js";
import type { PhaseRow } from "../../trace/events.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { agentText, formatCost, formatTokens } from "../format.js";
import type { LiveBoard } from "./live-board.js";

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

/**
 * The live mode's own part: per running phase a spinner line on `board` (number, name, owner, elapsed
 * time, tokens and cost so far, the tool call in flight) and the agent's latest text line, around
 * `plain`, whose lines the board prints above its area. Agent text is redacted and made terminal-safe
 * (`agentText`), like every plain line.
 */
export function liveView(plain: RunReporter, board: LiveBoard, now: () => number): RunReporter {
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
    ...plain,
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
    toolCall(phase, call) {
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
    finished(session, rows, end) {
      board.stop();
      plain.finished(session, rows, end);
    },
  };
}
