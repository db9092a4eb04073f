import { existsSync } from "node:fs";
import type { Workflow } from "../api/run-api.js";
import { type AgentConfig, findAgent, type SssfConfig } from "../config/config-types.js";
import { modelProblems } from "../config/model-check.js";
import { ConfigError } from "../errors/config-error.js";
import { RunRefusedError } from "../errors/run-refused-error.js";
import { isSssfError, SssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import type { RuntimeRegistry } from "../runtimes/registry.js";
import type { Runtime } from "../runtimes/runtime.js";
import { effectiveSandbox, SANDBOX_MODE_ENV, sandboxModeFromEnv } from "../sandbox/sandbox-settings.js";
import { sandboxSupport } from "../sandbox/sandbox-support.js";
import { checkBestOfCount } from "./best-of/best-of-call.js";

/** What the checks before a run need to know. */
export interface RunRequest {
  workflow: Workflow;
  request: string;
  config: SssfConfig;
  agent?: string | undefined;
  /** `--best-of N`. */
  bestOf?: number | undefined;
  registry: RuntimeRegistry;
  runtimes?: Runtime[] | undefined;
}

/**
 * Everything that can be refused before a run creates anything: an empty request, an unknown agent,
 * a runtime this build lacks, a missing quality suite. Every check runs: one problem is thrown as the
 * error naming its flag or field, several together as a `RunRefusedError` listing each. Returns how
 * to find each agent's (already loaded) runtime.
 */
export async function checkRunRequest(options: RunRequest): Promise<(agent: AgentConfig) => Runtime> {
  const problems: SssfError[] = [];
  if (options.request.trim() === "")
    problems.push(new UsageError("the prompt is empty: pass a request or a prompt file"));
  const resolveRuntime = await resolveRuntimes(options, problems);
  problems.push(...suiteProblems(options.workflow, options.config));
  problems.push(...bestOfProblems(options));
  const needed = agentsNeeded(options, []);
  problems.push(...sandboxProblems(needed, options.config));
  // A model of the roster its runtime says it cannot run (a ladder's later rung too), as a config
  // error is: refused before any agent starts, whichever agents this run needs.
  const registry = options.runtimes ? options.registry.with(options.runtimes) : options.registry;
  const models = await modelProblems(options.config, registry);
  if (models.length > 0) problems.push(new ConfigError(options.config.file ?? "(built-in defaults)", models));
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) throw new RunRefusedError(problems);
  return resolveRuntime;
}

/**
 * The checks of {@link checkRunRequest} that depend on the request and the config alone, not on the
 * machine: what `sssf run --engine restate` refuses before submitting (a worker would refuse it too).
 */
export function checkRequestAgainstConfig(options: Omit<RunRequest, "registry" | "runtimes">): void {
  const problems: SssfError[] = [];
  if (options.request.trim() === "")
    problems.push(new UsageError("the prompt is empty: pass a request or a prompt file"));
  agentsNeeded(options, problems);
  problems.push(...suiteProblems(options.workflow, options.config));
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) throw new RunRefusedError(problems);
}

/** Where a missing built-in agent comes from. */
function rosterHint(name: string): string {
  if (name.startsWith("sdd-")) return '; "sssf init --sdd" writes the sdd agents';
  if (["planner", "builder", "scout", "reviewer", "documenter"].includes(name))
    return '; "sssf init" writes the default roster';
  return "";
}

/** The agents the run needs; each one the roster lacks is a problem pushed on `problems`. */
function agentsNeeded(
  options: Pick<RunRequest, "config" | "workflow" | "agent">,
  problems: SssfError[],
): AgentConfig[] {
  const { config, workflow } = options;
  const names = [...new Set(workflow.agents)];
  if (options.agent !== undefined && !names.includes(options.agent)) names.push(options.agent);
  if (names.length === 0 && config.agents[0]) names.push(config.agents[0].name);
  return names.flatMap((name) => {
    const agent = findAgent(config, name);
    if (!agent) {
      const known = config.agents.map((a) => a.name).join(", ");
      const origin = options.agent === name ? "--agent" : `workflow ${workflow.name}`;
      problems.push(
        new UsageError(
          `${origin}: no agent named "${name}" in ${config.file ?? "the config"} (agents: ${known})${rosterHint(name)}`,
          "--agent",
        ),
      );
      return [];
    }
    return [agent];
  });
}

/**
 * `sandbox.mode: required` (or `SSSF_SANDBOX=required`) refuses the run before any agent starts when
 * this machine cannot box an agent, or when an `allow_write` path it names does not exist.
 */
function sandboxProblems(agents: AgentConfig[], config: SssfConfig): SssfError[] {
  const problems: SssfError[] = [];
  if (sandboxModeFromEnv() === "invalid")
    problems.push(
      new UsageError(
        `${SANDBOX_MODE_ENV}=${process.env[SANDBOX_MODE_ENV]}: expected auto, required or off`,
        SANDBOX_MODE_ENV,
      ),
    );
  const where = config.file ?? "the config";
  for (const agent of agents) {
    const settings = effectiveSandbox(agent.sandbox);
    if (settings.mode !== "required") continue;
    const support = sandboxSupport();
    if (!support.available) {
      problems.push(
        new SssfError(
          "sandbox_unavailable",
          `agent ${agent.name}: sandbox.mode is required, but ${support.reason}; ${support.fix}`,
          { exitCode: 2 },
        ),
      );
      continue;
    }
    for (const missing of settings.allowWrite.filter((entry) => !existsSync(entry)))
      problems.push(
        new SssfError(
          "sandbox_unavailable",
          `agent ${agent.name}: sandbox.allow_write names ${missing}, which does not exist (${where}); create it or remove it from the list`,
          { exitCode: 2 },
        ),
      );
  }
  return problems;
}

/** A workflow that needs a quality suite the config lacks must fail before anything runs. */
function suiteProblems(workflow: Workflow, config: SssfConfig): SssfError[] {
  const defined = Object.keys(config.quality);
  const where = config.file ?? "the config";
  const problems: SssfError[] = [];
  for (const suite of workflow.suites ?? []) {
    if (suite === "*" ? defined.length > 0 : defined.includes(suite)) continue;
    const need = suite === "*" ? "at least one quality suite" : `the quality suite "${suite}"`;
    problems.push(
      new SssfError(
        "config_invalid",
        `workflow ${workflow.name} needs ${need}, but ${where} defines ${defined.length ? defined.join(", ") : "none"}: add it under quality: (e.g. ${suite === "*" ? "test" : suite}: { command: [npm, ${suite === "*" || suite === "test" ? "test" : `run, ${suite}`}] })`,
        { exitCode: 2 },
      ),
    );
  }
  return problems;
}

function unknownRuntime(agent: AgentConfig, registry: RuntimeRegistry): SssfError {
  return new SssfError(
    "runtime_unknown",
    `agent ${agent.name}: coding_agent "${agent.codingAgent}" has no runtime in this build of sssf (available: ${registry.ids().join(", ")})`,
    { exitCode: 2 },
  );
}

/**
 * Loads the runtime of every agent the run may call before anything is created: the workflow's own
 * agents must have one; an owner named later (`run.agent(…, { owner })`) fails its phase if it has none.
 */
async function resolveRuntimes(
  options: RunRequest,
  problems: SssfError[],
): Promise<(agent: AgentConfig) => Runtime> {
  const registry = options.runtimes ? options.registry.with(options.runtimes) : options.registry;
  const needed = agentsNeeded(options, problems);
  const byAgent = new Map<string, Runtime>();
  const reported = new Set<string>();
  for (const agent of [...needed, ...options.config.agents]) {
    if (byAgent.has(agent.name) || reported.has(agent.name)) continue;
    let runtime: Runtime | undefined;
    try {
      runtime = await registry.resolve(agent.codingAgent);
    } catch (error) {
      if (!isSssfError(error) || !needed.includes(agent)) throw error;
      problems.push(error);
      reported.add(agent.name);
      continue;
    }
    if (runtime) byAgent.set(agent.name, runtime);
    else if (needed.includes(agent)) {
      problems.push(unknownRuntime(agent, registry));
      reported.add(agent.name);
    }
  }
  return (agent) => {
    const runtime = byAgent.get(agent.name);
    if (!runtime) throw unknownRuntime(agent, registry);
    return runtime;
  };
}

/** `--best-of N` on a workflow that names no phase for it, or N outside 1…`limits.max_best_of`. */
function bestOfProblems(options: RunRequest): SssfError[] {
  if (options.bestOf === undefined) return [];
  if (options.workflow.bestOf === undefined)
    return [
      new UsageError(
        `--best-of: workflow "${options.workflow.name}" has no building phase to run attempts of (a workflow takes it by naming one in its bestOf; the built-in build workflows do)`,
        "--best-of",
      ),
    ];
  try {
    checkBestOfCount(options.bestOf, options.config.limits.maxBestOf, "--best-of");
    return [];
  } catch (error) {
    return [error as SssfError];
  }
}
