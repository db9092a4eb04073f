import type { ToolCall, ToolStart, Usage } from "../runtimes/runtime.js";
import type { PhaseRow, SessionRow } from "../trace/events.js";

/** What a run tells the person watching it. The CLI prints lines; tests and the library stay quiet. */
export interface RunReporter {
  sessionStarted(session: SessionRow, sessionDir: string, joined: boolean): void;
  phaseStarted(phase: PhaseRow): void;
  phaseEnded(phase: PhaseRow): void;
  /** A resume answered a completed phase from the journal: no agent called, nothing redone. */
  phaseReplayed?(phase: PhaseRow): void;
  toolCall(phase: PhaseRow, call: ToolCall): void;
  /** Optional, live: a tool call the agent started in `phase` (its `toolCall` follows when it ends). */
  toolStarted?(phase: PhaseRow, call: ToolStart): void;
  /** Optional, live: the agent's latest line of text in `phase` as it streams (raw: redact before showing). */
  agentText?(phase: PhaseRow, line: string): void;
  /**
   * Optional, live: what the send in flight in `phase` has used so far (priced), on top of the usage
   * already in the phase's row; an empty usage once the send's total was added to the row.
   */
  sendUsage?(phase: PhaseRow, soFar: Usage): void;
  /**
   * A quality suite ended in `phase`: its redacted output tail (the last 60 lines), the file holding
   * its whole output (null when none was written) and the failing tests' names when the suite's
   * result names them (`failedTests`, from its envelope's `failed_tests`). Told for every suite run,
   * passing or not.
   */
  suiteOutput?(phase: PhaseRow, output: SuiteOutput): void;
  /** A line about the run; `phase` is the phase it concerns, when one does (parallel phases interleave). */
  log(message: string, phase?: PhaseRow): void;
  /**
   * The run ended. `end.branchRemoved`: sssf removed the run's branch and worktree, as it does for an
   * accepted run that committed nothing (so a reporter need not ask git what is left).
   */
  finished(session: SessionRow, phases: PhaseRow[], end?: RunEnd): void;
}

/** A quality suite's outcome as a reporter is told it. */
export interface SuiteOutput {
  suite: string;
  passed: boolean;
  tail: string;
  logPath: string | null;
  /** The failing tests' names, raw (redact before showing); absent or empty when the suite named none. */
  failedTests?: readonly string[];
}

/**
 * The failing tests a suite's envelope (`VerifyOutput`) names: its `failed_tests` list (each a name,
 * or an object with a `name` and a `file`, shown before it), then its `pre_existing_failures` marked
 * `(failed at base too)`; [] when the envelope has neither list.
 */
export function failedTestNames(envelope: unknown): string[] {
  const fields = envelope as { failed_tests?: unknown; pre_existing_failures?: unknown } | null;
  return [
    ...namesOf(fields?.failed_tests, ""),
    ...namesOf(fields?.pre_existing_failures, " (failed at base too)"),
  ];
}

function namesOf(list: unknown, suffix: string): string[] {
  if (!Array.isArray(list)) return [];
  const names: string[] = [];
  for (const item of list) {
    if (typeof item === "string") names.push(`${item}${suffix}`);
    else if (typeof item === "object" && item !== null && typeof item.name === "string") {
      const file = typeof item.file === "string" && item.file !== "" ? `${item.file} › ` : "";
      names.push(`${file}${item.name}${suffix}`);
    }
  }
  return names;
}

/** What the end of the run did with its workspace, for the reporter's last lines. */
export interface RunEnd {
  branchRemoved: boolean;
  /**
   * The branch's commits beyond its base as the end found them (`missing`: the branch is gone); null
   * or absent when the end did not look (in place) or git could not tell: the reporter asks git.
   */
  commits?: { own: readonly string[]; carried: readonly string[] } | "missing" | null;
}

export const silentReporter: RunReporter = {
  sessionStarted() {},
  phaseStarted() {},
  phaseEnded() {},
  toolCall() {},
  log() {},
  finished() {},
};
