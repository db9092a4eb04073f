import type { Workflow } from "../api/run-api.js";
import { type AgentConfig, findAgent, type SssfConfig } from "../config/config-types.js";
import { SssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import type { RuntimeRegistry } from "../runtimes/registry.js";
import type { Runtime } from "../runtimes/runtime.js";

/** What the checks before a run need to know. */
export interface RunRequest {
  workflow: Workflow;
  request: string;
  config: SssfConfig;
  agent?: string | undefined;
  registry: RuntimeRegistry;
  runtimes?: Runtime[] | undefined;
}

/**
 * Everything that can be refused before a run creates anything: an empty request, an unknown agent,
 * a runtime this build lacks, a missing quality suite. Throws the error naming the flag or field;
 * returns how to find each agent's (already loaded) runtime.
 */
export async function checkRunRequest(options: RunRequest): Promise<(agent: AgentConfig) => Runtime> {
  if (options.request.trim() === "")
    throw new UsageError("the prompt is empty: pass a request or a prompt file");
  const resolveRuntime = await resolveRuntimes(options);
  checkSuites(options.workflow, options.config);
  return resolveRuntime;
}

/** Where a missing built-in agent comes from. */
function rosterHint(name: string): string {
  if (name.startsWith("sdd-")) return '; "sssf init --sdd" writes the sdd agents';
  if (["planner", "builder", "scout", "reviewer", "documenter"].includes(name))
    return '; "sssf init" writes the default roster';
  return "";
}

function agentsNeeded(options: RunRequest): AgentConfig[] {
  const { config, workflow } = options;
  const names = [...workflow.agents];
  if (options.agent !== undefined) names.push(options.agent);
  if (names.length === 0 && config.agents[0]) names.push(config.agents[0].name);
  return names.map((name) => {
    const agent = findAgent(config, name);
    if (!agent) {
      const known = config.agents.map((a) => a.name).join(", ");
      const origin = options.agent === name ? "--agent" : `workflow ${workflow.name}`;
      throw new UsageError(
        `${origin}: no agent named "${name}" in ${config.file ?? "the config"} (agents: ${known})${rosterHint(name)}`,
        "--agent",
      );
    }
    return agent;
  });
}

/** A workflow that needs a quality suite the config lacks must fail before anything runs. */
function checkSuites(workflow: Workflow, config: SssfConfig): void {
  const defined = Object.keys(config.quality);
  const where = config.file ?? "the config";
  for (const suite of workflow.suites ?? []) {
    if (suite === "*" ? defined.length > 0 : defined.includes(suite)) continue;
    const need = suite === "*" ? "at least one quality suite" : `the quality suite "${suite}"`;
    throw new SssfError(
      "config_invalid",
      `workflow ${workflow.name} needs ${need}, but ${where} defines ${defined.length ? defined.join(", ") : "none"}: add it under quality: (e.g. ${suite === "*" ? "test" : suite}: { command: [npm, ${suite === "*" || suite === "test" ? "test" : `run, ${suite}`}] })`,
      { exitCode: 2 },
    );
  }
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
async function resolveRuntimes(options: RunRequest): Promise<(agent: AgentConfig) => Runtime> {
  const registry = options.runtimes ? options.registry.with(options.runtimes) : options.registry;
  const needed = agentsNeeded(options);
  const byAgent = new Map<string, Runtime>();
  for (const agent of [...needed, ...options.config.agents]) {
    if (byAgent.has(agent.name)) continue;
    const runtime = await registry.resolve(agent.codingAgent);
    if (runtime) byAgent.set(agent.name, runtime);
    else if (needed.includes(agent)) throw unknownRuntime(agent, registry);
  }
  return (agent) => {
    const runtime = byAgent.get(agent.name);
    if (!runtime) throw unknownRuntime(agent, registry);
    return runtime;
  };
}
