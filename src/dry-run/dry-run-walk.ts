/**
 * `sssf run --dry-run`: the workflow's own `run` called with a `Run` that starts nothing. Each agent
 * call is answered by an envelope generated from its output type; each suite is listed and taken as
 * passing; gates, commits and diffs are listed, not done; parallel branches are walked one after the
 * other, in order. Nothing is written: no session folder, no trace, no git object, no process.
 */

import path from "node:path";
import type {
  AgentPhase,
  AgentPhaseOptions,
  CallOptions,
  CodePhase,
  EngineerAnswer,
  EngineerPhase,
  Finished,
  FinishOptions,
  Run,
  Workflow,
} from "../api/run-api.js";
import { findAgent, type SssfConfig } from "../config/config-types.js";
import { checkRequestAgainstConfig } from "../engine/run-checks.js";
import type { EnvelopeOf, OutputType } from "../envelope/output-type.js";
import { ChangesOutput, VerifyOutput } from "../envelope/schemas.js";
import { isSssfError, SssfError } from "../errors/sssf-error.js";
import type { DryRunPhase, DryRunReport } from "./dry-run-report.js";
import { exampleEnvelope } from "./example-envelope.js";

export interface DryRunOptions {
  workflow: Workflow;
  request: string;
  config: SssfConfig;
  /** The run's working tree (`--cwd`), only named: nothing is read from it. */
  repoRoot: string;
  agent?: string | undefined;
  /** `--best-of N`, for the workflow's best-of phase (shown on it, one walk all the same). */
  bestOf?: number | undefined;
}

/** The adw_id a dry run shows where a real one would be. */
export const DRY_RUN_ADW_ID = "dry-run";

/** A passing result of `suite`, as `phase.runSuite` would return it. */
function passingSuite(suite: string, command: string[]): EnvelopeOf<typeof VerifyOutput> {
  return VerifyOutput.schema.parse({
    status: "success",
    summary: `${suite}: passed (dry run)`,
    suite,
    command,
    exit_code: 0,
    passed: true,
  });
}

class DryRunWalk implements Run {
  readonly adwId = DRY_RUN_ADW_ID;
  readonly workflow: string;
  readonly request: string;
  readonly repoRoot: string;
  readonly checkoutRoot: string;
  readonly contextHandoffDir: string;
  readonly config: SssfConfig;
  readonly agentOverride: string | undefined;
  readonly bestOf: number | undefined;
  readonly phases: DryRunPhase[] = [];
  outcome: FinishOptions | null = null;
  private branch: string | null = null;
  private parallels = 0;

  constructor(options: DryRunOptions) {
    this.workflow = options.workflow.name;
    this.request = options.request;
    this.repoRoot = options.repoRoot;
    this.checkoutRoot = options.repoRoot;
    this.contextHandoffDir = path.join(options.config.sessionsDir, DRY_RUN_ADW_ID, "context_handoff");
    this.config = options.config;
    this.agentOverride = options.agent;
    this.bestOf = options.bestOf;
  }

  private open(name: string, kind: DryRunPhase["kind"], owner: string, description: string): DryRunPhase {
    const agent = kind === "agent" ? findAgent(this.config, owner) : undefined;
    if (kind === "agent" && agent === undefined)
      throw new SssfError("agent_unknown", `phase ${name}: owner ${owner} is not an agent of the config`);
    const phase: DryRunPhase = {
      number: this.phases.length + 1,
      name,
      kind,
      owner,
      description,
      coding_agent: agent?.codingAgent ?? null,
      model: agent === undefined ? null : agent.model,
      branch: this.branch,
      calls: [],
      actions: [],
    };
    this.phases.push(phase);
    return phase;
  }

  async engineer<R>(
    name: string,
    options: { description: string },
    body: (phase: EngineerPhase) => R | Promise<R>,
  ): Promise<R> {
    const phase = this.open(name, "engineer", "engineer", options.description);
    return body({
      name,
      number: phase.number,
      log: () => {},
      ask: async (question: string): Promise<EngineerAnswer> => {
        phase.actions.push({ action: "ask", question });
        return { approved: true, reason: "dry run", by: "--dry-run", at: new Date(0).toISOString() };
      },
    });
  }

  async agent<R>(
    name: string,
    options: AgentPhaseOptions,
    body: (phase: AgentPhase) => Promise<R>,
  ): Promise<R> {
    const attempts =
      options.bestOf === undefined
        ? ""
        : ` (best of ${options.bestOf.attempts}, ${options.bestOf.mode === "first" ? "first passing" : "best of all"})`;
    const phase = this.open(name, "agent", options.owner, `${options.description}${attempts}`);
    return body({
      name,
      number: phase.number,
      owner: options.owner,
      log: () => {},
      call: async <T extends OutputType>(call: CallOptions<T>): Promise<EnvelopeOf<T>> => {
        let envelope: EnvelopeOf<T>;
        try {
          envelope = exampleEnvelope(call.outputType);
        } catch (error) {
          if (isSssfError(error))
            error.message = `phase ${String(phase.number).padStart(2, "0")} ${name} (agent ${options.owner}): ${error.message}`;
          throw error;
        }
        phase.calls.push({
          output_type: call.outputType.name,
          format: call.format ?? "json",
          gates: (call.gates ?? []).map((gate) => gate.name),
          envelope: envelope as Record<string, unknown>,
        });
        return envelope;
      },
    });
  }

  async code<R>(
    name: string,
    options: { description: string; owner?: string },
    body: (phase: CodePhase) => R | Promise<R>,
  ): Promise<R> {
    const phase = this.open(name, "code", options.owner ?? "code", options.description);
    return body({
      name,
      number: phase.number,
      log: () => {},
      runSuite: async (suite) => {
        const command = this.config.quality[suite]?.command ?? [];
        phase.actions.push({ action: "suite", suite, command });
        return passingSuite(suite, command);
      },
      suiteBaseline: async (suite) => {
        phase.actions.push({ action: "suite_baseline", suite });
        return null;
      },
      handOff: (outputType, envelope) => {
        phase.actions.push({ action: "hand_off", output_type: outputType.name });
        return envelope;
      },
      captureChanges: async () => {
        phase.actions.push({ action: "capture_changes" });
        return ChangesOutput.schema.parse({ status: "success", summary: "no changes (dry run)" });
      },
      commit: async (message) => {
        phase.actions.push({ action: "commit", message });
        return null;
      },
    });
  }

  async parallel<T extends readonly (() => Promise<unknown>)[]>(
    branches: T,
  ): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
    const outer = this.branch;
    const group = ++this.parallels;
    const results: unknown[] = [];
    // One after the other, in order: the list reads the same on every dry run.
    for (const [index, branch] of branches.entries()) {
      this.branch = `${outer === null ? "" : `${outer} › `}parallel ${group} · branch ${index + 1}/${branches.length}`;
      try {
        results.push(await branch());
      } finally {
        this.branch = outer;
      }
    }
    return results as { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };
  }

  finish(options: FinishOptions): Finished {
    this.outcome = options;
    return { accepted: options.accepted, reason: options.reason ?? "" } as unknown as Finished;
  }
}

/** Walks `options.workflow` without running anything. Throws the run's own checks' errors first. */
export async function dryRun(options: DryRunOptions): Promise<DryRunReport> {
  checkRequestAgainstConfig({
    workflow: options.workflow,
    request: options.request,
    config: options.config,
    agent: options.agent,
  });
  const walk = new DryRunWalk(options);
  const finished = await options.workflow.run(walk, options.request);
  const walked = new Set(walk.phases.map((phase) => phase.name));
  // `Workflow.phases` is for people: `spec ∥ design` names two phases, `<suite>…` stands for several.
  const declared = (options.workflow.phases ?? []).flatMap((name) => name.split(" ∥ "));
  const notWalked = [...new Set(declared.filter((name) => !name.includes("<") && !walked.has(name)))];
  const notes = [
    "every call is answered by an envelope generated from its output type; gates are listed, not run; suites are taken as passing; nothing is committed",
  ];
  if (notWalked.length > 0)
    notes.push(
      `${notWalked.join(", ")}: not walked, a loop or branch the generated envelopes do not take (every suite passes and every review approves, so a fix or revise loop ends after its first round)`,
    );
  if (walk.phases.some((phase) => phase.actions.some((action) => action.action === "ask")))
    notes.push("the engineer's questions are taken as approved");
  return {
    dry_run: true,
    workflow: options.workflow.name,
    request: options.request,
    phases: walk.phases,
    not_walked: notWalked,
    accepted: finished.accepted,
    reason: finished.reason,
    notes,
  };
}
