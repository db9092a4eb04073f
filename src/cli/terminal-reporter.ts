import path from "node:path";
import type { ToolCall } from "../runtimes/runtime.js";
import type { RunReporter } from "../session/reporter.js";
import type { PhaseRow, SessionRow } from "../trace/events.js";
import { formatCost, formatDuration, formatTokens, paint, truncate } from "./format.js";

const pad = (n: number) => String(n).padStart(2, "0");

function usageText(row: { input_tokens: number; output_tokens: number; cost_usd: number }): string {
  if (row.input_tokens === 0 && row.output_tokens === 0 && row.cost_usd === 0) return "";
  return ` · ${formatTokens(row.input_tokens)} in / ${formatTokens(row.output_tokens)} out · ${formatCost(row.cost_usd)}`;
}

/** Prints phase progress as plain lines (colored on a terminal): readable live and in CI logs. */
export function createTerminalReporter(out: NodeJS.WriteStream, cwd: string): RunReporter {
  const write = (line: string) => out.write(`${line}\n`);
  // While phases overlap (run.parallel), each tool call and log line names the phase it belongs to.
  const running = new Set<string>();
  const tag = (phase: PhaseRow | undefined) =>
    phase && running.size > 1 ? `${paint(out, "cyan", `[${pad(phase.number)} ${phase.name}]`)} ` : "";
  return {
    sessionStarted(session, sessionDir, joined) {
      const where = path.relative(cwd, sessionDir) || sessionDir;
      write(
        `${paint(out, "bold", `sssf ${session.workflow}`)} · adw_id ${paint(out, "cyan", session.adw_id)}${joined ? " (joined)" : ""} · session ${where}`,
      );
      if (session.worktree) {
        const base = session.base_ref ? ` from ${session.base_ref.slice(0, 12)}` : "";
        write(
          `   worktree ${path.relative(cwd, session.worktree) || session.worktree} · branch ${paint(out, "cyan", session.branch ?? "")}${base}`,
        );
      }
    },
    phaseStarted(phase) {
      running.add(phase.id);
      const who = phase.kind === "agent" ? `agent ${phase.owner}` : phase.kind;
      write(
        `${paint(out, "blue", "▶")} ${pad(phase.number)} ${phase.name} (${who}) ${paint(out, "dim", phase.description)}`,
      );
    },
    phaseEnded(phase) {
      running.delete(phase.id);
      const ok = phase.status === "success";
      const mark = ok ? paint(out, "green", "✔") : paint(out, "red", "✘");
      const error = ok || !phase.error ? "" : ` ${paint(out, "red", truncate(phase.error, 300))}`;
      write(
        `${mark} ${pad(phase.number)} ${phase.name} ${formatDuration(phase.duration_ms)}${usageText(phase)}${error}`,
      );
    },
    toolCall(phase: PhaseRow, call: ToolCall) {
      const mark = call.ok ? paint(out, "green", "·") : paint(out, "red", "!");
      write(
        `   ${mark} ${tag(phase)}${truncate(call.name, 100)} ${paint(out, "dim", formatDuration(call.endedAt.getTime() - call.startedAt.getTime()))}`,
      );
    },
    log(message, phase) {
      write(`   ${tag(phase)}${paint(out, "yellow", truncate(message, 300))}`);
    },
    finished(session: SessionRow, phases: PhaseRow[]) {
      const accepted = session.accepted === 1;
      const banner = accepted
        ? paint(out, ["bold", "green"], "ACCEPTED")
        : paint(out, ["bold", "red"], "NOT ACCEPTED");
      const failed = phases.filter((p) => p.status === "fail").length;
      write(
        `${banner} ${session.adw_id}: ${truncate(session.reason ?? "", 400)}\n` +
          `   ${phases.length} phase${phases.length === 1 ? "" : "s"}${failed ? ` (${failed} failed)` : ""} · ${formatDuration(session.duration_ms)}` +
          ` · ${formatTokens(session.input_tokens)} in / ${formatTokens(session.output_tokens)} out` +
          ` (cache ${formatTokens(session.cache_read_tokens)} read / ${formatTokens(session.cache_write_tokens)} write) · ${formatCost(session.cost_usd)}\n` +
          `   trace: sssf phases ${session.adw_id} · sssf events ${session.adw_id} · sssf envelopes ${session.adw_id}`,
      );
      if (session.worktree && session.branch) {
        const range = `${session.base_ref ? session.base_ref.slice(0, 12) : "HEAD"}..${session.branch}`;
        write(
          `   branch ${session.branch} left for review · worktree ${path.relative(cwd, session.worktree) || session.worktree}\n` +
            `   review: git log --oneline ${range} · git diff ${range.replace("..", "...")}`,
        );
      }
    },
  };
}
