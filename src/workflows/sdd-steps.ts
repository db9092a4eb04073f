/**
 * Steps of the `sdd` workflow: each agent answers with the Markdown result contract, and code decides
 * what happens next with `decide()` — proceed, ask the engineer, or stop.
 */
import { type Decision, decide, recordDecision } from "../api/decide.js";
import type { Run } from "../api/run-api.js";
import { MarkdownResult, type Risk } from "../envelope/markdown-result-type.js";
import type { EnvelopeOf } from "../envelope/output-type.js";
import { gates } from "../gates/index.js";

export type Report = EnvelopeOf<typeof MarkdownResult>;

/** Where a change's artifacts live (openspec layout). */
export function changeDir(change: string): string {
  return `openspec/changes/${change}`;
}

/** Words that say nothing about a change, left out of its name. */
const FILLER = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "for",
  "in",
  "on",
  "at",
  "with",
  "and",
  "or",
  "into",
  "please",
]);

/** A kebab-case change name from the request's first four meaningful words, e.g. "add-dark-mode". Never empty. */
export function changeName(request: string): string {
  const words = request
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9\s-]/g, " ")
    .split(/[\s-]+/)
    .filter((word) => word !== "" && !FILLER.has(word))
    .slice(0, 4);
  return words.join("-").slice(0, 48).replace(/-+$/, "") || "change";
}

export interface SddPhase {
  /** Phase and agent suffix: explore, propose, spec, design, tasks, apply, verify, archive. */
  name: string;
  description: string;
  /** What this agent must do, in words; the change and its folder are added. */
  task: string;
  change: string;
  previous?: object | null;
  /**
   * What a CRITICAL risk in this phase's report does (default: ask the engineer); a Next Recommended
   * that says it is blocked or says to stop does the same (`decide`'s `onBlocked` follows it).
   */
  onCritical?: "stop" | "ask";
  /**
   * The phase writes code, so its report must list every file it changed: adds the
   * `artifactsCoverChanges` gate (the engine then snapshots the tree before the call).
   */
  coverChanges?: boolean;
  /**
   * The workflow's last agent phase: nothing comes after it, so "none" is a true Next Recommended and
   * `nextRecommendedSpecific` is not asked of it.
   */
  last?: boolean;
}

/** A phase's report and what code decided on it. */
export interface Decided {
  report: Report;
  decision: Decision;
}

/**
 * One sdd agent phase (`sdd-<name>` owns it), answered in the Markdown contract and gated on it
 * (`statusConsistent`, `nextRecommendedSpecific` unless `last`, `artifactsExist`, and
 * `artifactsCoverChanges` when `coverChanges`); the decision on its report is taken and traced inside the phase that produced it.
 */
export function sddPhase(run: Run, request: string, step: SddPhase): Promise<Decided> {
  const prompt = [
    request,
    "",
    `Change: ${step.change}`,
    `Artifacts folder: ${changeDir(step.change)}/`,
    "",
    step.task,
  ].join("\n");
  return run.agent(step.name, { owner: `sdd-${step.name}`, description: step.description }, async (phase) => {
    const report = await phase.call({
      outputType: MarkdownResult,
      format: "markdown",
      prompt,
      ...(step.previous === undefined ? {} : { previous: step.previous }),
      gates: [
        gates.statusConsistent,
        ...(step.last ? [] : [gates.nextRecommendedSpecific]),
        gates.artifactsExist,
        ...(step.coverChanges ? [gates.artifactsCoverChanges] : []),
      ],
    });
    const decision = recordDecision(phase, decide(report, { onCritical: step.onCritical ?? "ask" }));
    return { report, decision };
  });
}

/** What the run should do after a report, decided in code, traced, and carried to the banner. */
export interface Outcome {
  proceed: boolean;
  /** Why the run stops (when it does). */
  reason: string;
}

/**
 * Acts on a decision: a warning proceeds and its risks are kept for the banner; "ask" is an
 * `approve-<phase>` engineer phase that waits for `sssf approve` / `sssf reject` (or `--yes`); "stop"
 * stops. `warnings` collects what the final banner must show.
 */
export async function act(
  run: Run,
  { report, decision }: Decided,
  options: { phase: string; warnings: string[] },
): Promise<Outcome> {
  const risks = decision.risks.map(formatRisk);
  if (decision.action === "proceed") {
    options.warnings.push(...risks.map((r) => `${options.phase}: ${r}`));
    return { proceed: true, reason: decision.reason };
  }
  if (decision.action === "stop") return { proceed: false, reason: `${options.phase}: ${decision.reason}` };
  const answer = await run.engineer(
    `approve-${options.phase}`,
    { description: `Decide whether to go on despite ${options.phase}'s risks` },
    (phase) =>
      phase.ask(`${options.phase} reported ${decision.reason}. Proceed?`, {
        phase: options.phase,
        risks: decision.risks,
        next_recommended: report.next_recommended,
      }),
  );
  if (!answer.approved) {
    return {
      proceed: false,
      reason: `${options.phase}: rejected by ${answer.by}: ${answer.reason || decision.reason}`,
    };
  }
  options.warnings.push(...risks.map((r) => `${options.phase} (approved by ${answer.by}): ${r}`));
  return { proceed: true, reason: decision.reason };
}

export function formatRisk(risk: Risk): string {
  return `${risk.severity}: ${risk.text}`;
}
