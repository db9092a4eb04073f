import { type NextStepReading, readNextStep } from "../envelope/markdown-next-step.js";
import type { MarkdownResult, Risk } from "../envelope/markdown-result-type.js";
import type { EnvelopeOf } from "../envelope/output-type.js";
import { shortenText } from "../util/shorten-text.js";

/** What a workflow does after a Markdown result: go on, ask the engineer, or stop. */
export type DecisionAction = "proceed" | "ask" | "stop";

/** The outcome of `decide`: the action, one line saying why, and the risks to surface. */
export interface Decision {
  action: DecisionAction;
  /** One line: why this action (the summary of a failure, the first CRITICAL risk, a blocked next step …). */
  reason: string;
  /**
   * The report's CRITICAL and WARNING risks, most severe first (SUGGESTIONs are advice, not risks to
   * surface). Empty for a clean success.
   */
  risks: Risk[];
  /** Set only when the Next Recommended said it is blocked or said to stop, and so took part in the action. */
  nextStep?: NextStepReading;
}

/** How `decide` treats what the contract leaves to the workflow. */
export interface DecisionPolicy {
  /** What a CRITICAL risk does when the report did not fail: ask the engineer (default) or stop. */
  onCritical?: "stop" | "ask";
  /**
   * What a Next Recommended that says it is blocked or says to stop (`readNextStep`: "Blocked: …",
   * "cannot proceed", "Stop here", "Wait for …") does when the report did not fail: ask the engineer or
   * stop. Defaults to `onCritical` (so a phase whose CRITICAL risks stop also stops on a block), and
   * so to "ask".
   */
  onBlocked?: "stop" | "ask";
}

const SEVERITY_RANK = { CRITICAL: 0, WARNING: 1, SUGGESTION: 2 } as const;

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** "2 CRITICAL risks: the first text (and 1 more)". */
function riskLine(risks: Risk[], severity: "CRITICAL" | "WARNING"): string {
  const first = risks[0]?.text ?? "";
  const more = risks.length > 1 ? ` (and ${risks.length - 1} more)` : "";
  return `${plural(risks.length, `${severity} risk`)}: ${first}${more}`;
}

/** "Next Recommended says it is blocked: Blocked: resolve …", the advice cut at 160 characters. */
function nextStepLine(reading: NextStepReading, advice: string): string {
  const text = advice.replace(/\s+/g, " ").trim();
  const cut = shortenText(text, 160);
  return `Next Recommended says ${reading.kind === "blocked" ? "it is blocked" : "to stop"}: ${cut}`;
}

/**
 * Decides what follows a Markdown result, as its contract says: a failure stops; any CRITICAL risk
 * (in a report that did not fail) asks the engineer or stops, as `policy.onCritical` says (default
 * `"ask"`); so does a Next Recommended that says it is blocked or says to stop (`readNextStep`), as
 * `policy.onBlocked` says (default: `onCritical`) — with both, the action is "stop" when either policy
 * says stop, and the reason names both; a warning proceeds with its risks returned for the trace and
 * the final banner; a success proceeds. A real next step, or "None needed", never holds a report back.
 * Pure: never throws, never writes; record the decision with `recordDecision`.
 *
 * @example
 * const decision = decide(report, { onCritical: "stop" });
 * if (decision.action === "stop") return run.finish({ accepted: false, reason: decision.reason });
 */
export function decide(report: EnvelopeOf<typeof MarkdownResult>, policy: DecisionPolicy = {}): Decision {
  const risks = report.risks
    .filter((risk) => risk.severity !== "SUGGESTION")
    .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
  const critical = risks.filter((risk) => risk.severity === "CRITICAL");
  const warnings = risks.filter((risk) => risk.severity === "WARNING");
  if (report.result_status === "failure" || report.status === "fail") {
    return { action: "stop", reason: `failure: ${report.summary}`, risks };
  }
  const onCritical = policy.onCritical ?? "ask";
  const next = readNextStep(report.next_recommended);
  const blocked = next.kind === "blocked" || next.kind === "stop";
  if (critical.length > 0 || blocked) {
    const actions = [
      critical.length > 0 ? onCritical : null,
      blocked ? (policy.onBlocked ?? onCritical) : null,
    ];
    const reasons = [
      critical.length > 0 ? riskLine(critical, "CRITICAL") : null,
      blocked ? nextStepLine(next, report.next_recommended) : null,
    ];
    return {
      action: actions.includes("stop") ? "stop" : "ask",
      reason: reasons.filter((reason) => reason !== null).join("; "),
      risks,
      ...(blocked ? { nextStep: next } : {}),
    };
  }
  if (report.result_status === "warning" || report.warning) {
    const why = warnings.length > 0 ? riskLine(warnings, "WARNING") : report.summary;
    return { action: "proceed", reason: `warning: ${why}`, risks };
  }
  return {
    action: "proceed",
    reason: warnings.length > 0 ? `success with ${riskLine(warnings, "WARNING")}` : "success",
    risks,
  };
}

/** Anything that can add a `log` event to a phase: every phase handle of the `Run` API. */
export interface DecisionLog {
  log(message: string, details?: Record<string, unknown>): void;
}

/**
 * Records a decision as a `log` event of `phase` (name `decision: <action> (<reason>)`, payload
 * `{ decision: action, reason, risks }`, plus `next_step: { kind, cue }` when a blocked or stopping
 * Next Recommended took part) and returns it unchanged, so a step reads
 * `const decision = recordDecision(phase, decide(report))`. Call it inside the phase whose report was
 * decided on. Never throws.
 */
export function recordDecision(phase: DecisionLog, decision: Decision): Decision {
  phase.log(`decision: ${decision.action} (${decision.reason})`, {
    decision: decision.action,
    reason: decision.reason,
    risks: decision.risks,
    ...(decision.nextStep ? { next_step: { kind: decision.nextStep.kind, cue: decision.nextStep.cue } } : {}),
  });
  return decision;
}
