/** The plain-text report of `sssf replay`: one block per run, one line per phase, a closing count. */

import type { ReplayReport } from "./replay-run.js";

const pad = (n: number) => String(n).padStart(2, "0");

/** The lines of one run's report. */
export function replayLines(report: ReplayReport): string[] {
  const verdict = report.changed ? "changed" : "same";
  const into = report.replay_id === null ? "" : ` → replay ${report.replay_id}`;
  const lines = [`replay ${report.adw_id} (${report.workflow})${into}: ${verdict}`];
  const width = Math.max(0, ...report.phases.map((p) => p.phase.length));
  for (const phase of report.phases) {
    const detail = phase.detail === "" ? "" : `: ${phase.detail}`;
    lines.push(
      `  ${pad(phase.position)} ${phase.phase.padEnd(width)}  ${phase.kind.padEnd(8)} ${phase.outcome}${detail}`,
    );
  }
  const { recorded, replayed } = report;
  if (
    replayed !== null &&
    recorded.accepted !== null &&
    recorded.accepted !== replayed.accepted &&
    report.stopped === null
  )
    lines.push(
      `  run: recorded ${recorded.accepted ? "accepted" : "not accepted"}, now ${replayed.accepted ? "accepted" : "not accepted"}: ${replayed.reason}`,
    );
  const stop = report.stopped;
  if (stop !== null) {
    const where =
      stop.position === 0
        ? "before its first phase"
        : `at ${pad(stop.position)} ${stop.phase}${stop.send === null ? "" : `, send ${stop.send} of ${stop.agent}`}`;
    lines.push(`  stopped ${where}: ${stop.why}`);
  }
  for (const note of report.notes) lines.push(`  note: ${note}`);
  return lines;
}

/** The closing line: how many runs, how many changed, how fast. */
export function replaySummary(reports: ReplayReport[], elapsedMs: number): string {
  const changed = reports.filter((r) => r.changed).length;
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? reports.length / seconds : reports.length;
  return `replayed ${reports.length} run(s): ${changed} changed, ${reports.length - changed} same (${seconds.toFixed(2)} s, ${rate.toFixed(1)} runs/s)`;
}
