import { existsSync } from "node:fs";
import path from "node:path";
import type { ToolCall } from "../../runtimes/runtime.js";
import type { RunEnd, RunReporter } from "../../session/reporter.js";
import type { PhaseRow, SessionRow } from "../../trace/events.js";
import { redactSecrets } from "../../util/secrets/redact.js";
import { terminalSafe } from "../../util/terminal-text.js";
import { branchCommitsSync } from "../../workspace/worktree-dirty.js";
import { agentText, formatCost, formatDuration, formatTokens, paint } from "../format.js";
import type { LineWriter } from "./batched-writes.js";

const pad = (n: number) => String(n).padStart(2, "0");

/** Lines of a failing suite's output tail printed after its phase's ✘ line. */
const SUITE_TAIL_LINES = 30;
/** Failing tests named after a failing suite's ✘ line; the rest are counted. */
const FAILED_TEST_NAMES = 20;

function usageText(row: { input_tokens: number; output_tokens: number; cost_usd: number }): string {
  if (row.input_tokens === 0 && row.output_tokens === 0 && row.cost_usd === 0) return "";
  return ` · ${formatTokens(row.input_tokens)} in / ${formatTokens(row.output_tokens)} out · ${formatCost(row.cost_usd)}`;
}

/**
 * The plain lines of a run (colored on a terminal): readable live and in CI logs, the same whether the
 * run prints them or `sssf tail` rebuilds them from the trace. `out` decides the colors; the lines go
 * to `lines` (tool calls, which come in floods, through `lines.line`, batched; every other line after
 * a `drain`). Every piece of text that comes from the agent, the workflow or the repo is made safe
 * before it is painted (`terminalSafe`: controls as visible escapes); the agent's (tool calls, log
 * lines, errors, the reason) is redacted and cut to one line first (`agentText`).
 */
export function createPlainLines(
  out: Pick<NodeJS.WriteStream, "isTTY">,
  cwd: string,
  lines: LineWriter,
): RunReporter {
  const stream = out as NodeJS.WriteStream;
  const batched = lines.line;
  const write = (line: string) => {
    lines.drain();
    for (const one of line.split("\n")) lines.line(one);
    lines.drain();
  };
  // Names, descriptions and paths may hold a secret too (a request pasted into a description).
  const safe = (text: string) => terminalSafe(redactSecrets(text));
  const where = (file: string) => safe(path.relative(cwd, file) || file);
  // While phases overlap (run.parallel), each tool call and log line names the phase it belongs to.
  const running = new Set<string>();
  // A rejoined session's row totals every attempt; the banner tells this attempt's apart from them.
  let attempt: { joined: boolean; startedAt: number } = { joined: false, startedAt: Date.now() };
  // False when the session's folder is not here: another sssf ran it (a cluster worker), in its own checkout.
  let ranHere = true;
  // A failing suite's output, held until its phase's ✘ line is printed.
  const suiteLines = new Map<string, string[]>();
  const tag = (phase: PhaseRow | undefined) =>
    phase && running.size > 1
      ? `${paint(stream, "cyan", `[${pad(phase.number)} ${safe(phase.name)}]`)} `
      : "";
  return {
    sessionStarted(session, sessionDir, joined) {
      attempt = { joined, startedAt: Date.now() };
      ranHere = existsSync(sessionDir);
      write(
        `${paint(stream, "bold", `sssf ${safe(session.workflow)}`)} · adw_id ${paint(stream, "cyan", safe(session.adw_id))}${joined ? " (joined)" : ""} · session ${where(sessionDir)}`,
      );
      if (session.worktree) {
        const base = session.base_ref ? ` from ${safe(session.base_ref.slice(0, 12))}` : "";
        write(
          `   worktree ${where(session.worktree)} · branch ${paint(stream, "cyan", safe(session.branch ?? ""))}${base}`,
        );
      }
    },
    phaseStarted(phase) {
      running.add(phase.id);
      const who = phase.kind === "agent" ? `agent ${safe(phase.owner)}` : safe(phase.kind);
      write(
        `${paint(stream, "blue", "▶")} ${pad(phase.number)} ${safe(phase.name)} (${who}) ${paint(stream, "dim", safe(phase.description))}`,
      );
    },
    phaseEnded(phase) {
      running.delete(phase.id);
      const ok = phase.status === "success";
      const mark = ok ? paint(stream, "green", "✔") : paint(stream, "red", "✘");
      const error = ok || !phase.error ? "" : ` ${paint(stream, "red", agentText(phase.error, 300))}`;
      write(
        `${mark} ${pad(phase.number)} ${safe(phase.name)} ${formatDuration(phase.duration_ms)}${usageText(phase)}${error}`,
      );
      for (const line of suiteLines.get(phase.id) ?? []) write(line);
      suiteLines.delete(phase.id);
    },
    suiteOutput(phase, output) {
      if (output.passed) return;
      const all = output.tail === "" ? [] : output.tail.split("\n");
      const shown = all.slice(-SUITE_TAIL_LINES);
      const failed = output.failedTests ?? [];
      const names = failed.slice(0, FAILED_TEST_NAMES);
      const more = failed.length - names.length;
      const lines = [
        ...(failed.length === 0
          ? []
          : [`   ${safe(output.suite)}: ${failed.length} failing test${failed.length === 1 ? "" : "s"}:`]),
        ...names.map((name) => `   ${paint(stream, "red", "✘")} ${agentText(name, 200)}`),
        ...(more > 0 ? [`   ${paint(stream, "dim", `… and ${more} more (full log below)`)}`] : []),
        `   ${paint(stream, "dim", `${safe(output.suite)} output${shown.length < all.length ? `, last ${shown.length} lines` : ""}:`)}`,
        ...shown.map((line) => `   ${paint(stream, "dim", "│")} ${safe(line)}`),
        `   full log: ${output.logPath ? where(output.logPath) : "not written"}`,
      ];
      if (running.has(phase.id)) suiteLines.set(phase.id, [...(suiteLines.get(phase.id) ?? []), ...lines]);
      else for (const line of lines) write(line);
    },
    phaseReplayed(phase) {
      const who = phase.kind === "agent" ? `agent ${safe(phase.owner)}` : safe(phase.kind);
      write(
        `${paint(stream, "cyan", "↺")} ${pad(phase.number)} ${safe(phase.name)} (${who}) ${paint(stream, "dim", `replayed from the trace: ${phase.status}, nothing redone`)}`,
      );
    },
    toolCall(phase: PhaseRow, call: ToolCall) {
      const mark = call.ok ? paint(stream, "green", "·") : paint(stream, "red", "!");
      batched(
        `   ${mark} ${tag(phase)}${agentText(call.name, 100)} ${paint(stream, "dim", formatDuration(call.endedAt.getTime() - call.startedAt.getTime()))}`,
      );
    },
    log(message, phase) {
      write(`   ${tag(phase)}${paint(stream, "yellow", agentText(message, 300))}`);
    },
    finished(session: SessionRow, phases: PhaseRow[], end?: RunEnd) {
      const accepted = session.accepted === 1;
      const banner = accepted
        ? paint(stream, ["bold", "green"], "ACCEPTED")
        : paint(stream, ["bold", "red"], "NOT ACCEPTED");
      const failed = phases.filter((p) => p.status === "fail").length;
      const adwId = safe(session.adw_id);
      const count = `${phases.length} phase${phases.length === 1 ? "" : "s"}${failed ? ` (${failed} failed)` : ""}`;
      const usage =
        `${formatTokens(session.input_tokens)} in / ${formatTokens(session.output_tokens)} out` +
        ` (cache ${formatTokens(session.cache_read_tokens)} read / ${formatTokens(session.cache_write_tokens)} write) · ${formatCost(session.cost_usd)}`;
      // Joined: the phases and the time are this attempt's; the session's totals are labelled as such.
      const totals = attempt.joined
        ? `this attempt: ${count} · ${formatDuration(Date.now() - attempt.startedAt)} · session total: ${formatDuration(session.duration_ms)} · ${usage}`
        : `${count} · ${formatDuration(session.duration_ms)} · ${usage}`;
      write(
        `${banner} ${adwId}: ${agentText(session.reason ?? "", 400)}\n` +
          `   ${totals}\n` +
          `   trace: sssf phases ${adwId} · sssf events ${adwId} · sssf envelopes ${adwId}`,
      );
      if (session.worktree && session.branch) {
        const branch = safe(session.branch);
        // Another sssf's checkout (a cluster worker's, removed at its run's end), gone, or another
        // machine's: nothing here to ask git about.
        const checkout = session.checkout ?? session.worktree;
        const elsewhere =
          !ranHere || (session.checkout !== null && !existsSync(session.checkout)) ? checkout : null;
        // Removed, or looked at, by this run's end: nothing to ask git.
        const commits =
          end?.branchRemoved === true
            ? "missing"
            : end?.commits != null
              ? end.commits
              : session.base_ref && elsewhere === null
                ? branchCommitsSync(session.checkout ?? cwd, session.base_ref, session.branch)
                : null;
        if (commits === "missing") write(`   no commits; branch ${branch} removed, with its worktree`);
        else if (commits === null && elsewhere !== null) {
          write(
            `   branch ${branch}: its checkout ${where(elsewhere)} is gone or on another machine or not this checkout's to read (a cluster worker's, which pushed the branch if the run committed: git fetch origin ${branch})`,
          );
        } else if (commits !== null && commits.own.length === 0) {
          const only = commits.carried.length > 0 ? " (only the changes carried from the checkout)" : "";
          const rejoin = accepted ? `sssf run … --adw-id ${adwId}` : `sssf resume ${adwId}`;
          write(
            `   no commits on branch ${branch}${only}: nothing to review · worktree ${where(session.worktree)} kept to rejoin (${rejoin}); sssf clean removes both`,
          );
        } else {
          const base = session.base_ref ? safe(session.base_ref.slice(0, 12)) : "HEAD";
          const range = `${base}..${branch}`;
          write(
            `   branch ${branch} left for review · worktree ${where(session.worktree)}\n` +
              `   review: git log --oneline ${range} · git diff ${range.replace("..", "...")}`,
          );
        }
      }
    },
  };
}
