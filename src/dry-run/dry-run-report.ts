/** What `sssf run --dry-run` found: the phases the workflow would run, in order (wire names: `--json`). */

/** One thing a code phase would do. */
export type DryRunAction =
  | { action: "suite"; suite: string; command: string[] }
  | { action: "suite_baseline"; suite: string }
  | { action: "capture_changes" }
  | { action: "commit"; message: string }
  | { action: "hand_off"; output_type: string }
  | { action: "ask"; question: string };

/** One `phase.call` of an agent phase. */
export interface DryRunCall {
  output_type: string;
  format: "json" | "markdown";
  gates: string[];
  /** The generated envelope the call was answered with. */
  envelope: Record<string, unknown>;
}

export interface DryRunPhase {
  number: number;
  name: string;
  kind: "engineer" | "agent" | "code";
  owner: string;
  description: string;
  /** The owner's runtime and model (agent phases), as the config names them. */
  coding_agent: string | null;
  model: string | null;
  /** `parallel 1 · branch 2` for a phase inside `run.parallel`, else null. */
  branch: string | null;
  calls: DryRunCall[];
  actions: DryRunAction[];
}

export interface DryRunReport {
  dry_run: true;
  workflow: string;
  request: string;
  phases: DryRunPhase[];
  /**
   * Phases the workflow declares (`Workflow.phases`) that the walk did not reach: loops and branches
   * that passing examples skip (a fix loop ends after its first round when the suites pass).
   */
  not_walked: string[];
  /** How the walk ended: `run.finish`'s verdict with the generated envelopes. */
  accepted: boolean;
  reason: string;
  /** What a reader of the list should know (loops ended early, what was not done). */
  notes: string[];
}

/** The report as lines for the terminal. */
export function dryRunLines(report: DryRunReport): string[] {
  const lines = [
    `dry run of ${report.workflow}: ${report.phases.length} phase(s); no agent, git, trace or session`,
  ];
  for (const phase of report.phases) {
    const who =
      phase.kind === "agent"
        ? `agent ${phase.owner}${phase.coding_agent === null ? "" : ` · ${phase.coding_agent}${phase.model ? ` ${phase.model}` : ""}`}`
        : phase.kind === "engineer"
          ? "engineer"
          : `code ${phase.owner}`;
    const branch = phase.branch === null ? "" : ` [${phase.branch}]`;
    lines.push(
      `${String(phase.number).padStart(2, "0")} ${phase.name} (${who})${branch} ${phase.description}`,
    );
    for (const call of phase.calls)
      lines.push(
        `   call → ${call.output_type}${call.format === "markdown" ? " (markdown)" : ""} · gates: ${call.gates.join(", ") || "none"}`,
      );
    for (const action of phase.actions) lines.push(`   ${actionLine(action)}`);
  }
  for (const note of report.notes) lines.push(`note: ${note}`);
  lines.push(`${report.accepted ? "would be ACCEPTED" : "would NOT be accepted"}: ${report.reason}`);
  return lines;
}

function actionLine(action: DryRunAction): string {
  switch (action.action) {
    case "suite":
      return `suite ${action.suite}: ${action.command.join(" ")}`;
    case "suite_baseline":
      return `suite ${action.suite} at the base commit`;
    case "capture_changes":
      return "capture the run's changes (diff)";
    case "commit":
      return `commit: ${action.message.split("\n")[0]}`;
    case "hand_off":
      return `hand off ${action.output_type}`;
    case "ask":
      return `ask the engineer: ${action.question}`;
  }
}
