/**
 * The models a roster names, checked before a run starts by the runtimes that can tell which models
 * exist offline (`Runtime.checkModel`: pi's catalog, codex's, gemini-cli's, opencode's; claude only
 * refuses names that cannot be model names; exec cannot tell). A ladder whose second rung names an
 * unknown model is refused at once, one line naming the agent, the field and the model (exit 2),
 * instead of after the first rung's corrections were paid for. Runtimes that cannot tell keep the
 * first send's refusal (docs/reliability.md).
 */
import { ConfigError, type ConfigProblem } from "../errors/config-error.js";
import type { RuntimeRegistry } from "../runtimes/registry.js";
import type { ModelCheck, Runtime } from "../runtimes/runtime.js";
import type { AgentConfig, SssfConfig } from "./config-types.js";

/** One model an agent names and the wire field naming it. */
export interface NamedModel {
  /** `agents[2].models[1]`, `agents[0].model`, `agents[1].fallback[0]`. */
  path: string;
  model: string;
}

/**
 * Every model `agent` (the `index`-th of the roster) names: each rung of its ladder, else its `model`;
 * then the models of its `fallback` list. An empty `model` (the runtime's default) names none.
 */
export function namedModels(agent: AgentConfig, index: number): NamedModel[] {
  const where = `agents[${index}]`;
  const named: NamedModel[] =
    agent.models !== undefined
      ? agent.models.map((model, rung) => ({ path: `${where}.models[${rung}]`, model }))
      : agent.model.trim() === ""
        ? []
        : [{ path: `${where}.model`, model: agent.model }];
  (agent.fallback ?? []).forEach((entry, position) => {
    if ("model" in entry) named.push({ path: `${where}.fallback[${position}]`, model: entry.model });
  });
  return named;
}

async function runtimeOf(registry: RuntimeRegistry, id: string): Promise<Runtime | undefined> {
  try {
    return await registry.resolve(id);
  } catch {
    // A runtime that does not load is refused by the run's own checks, naming it.
    return undefined;
  }
}

/**
 * A problem for every model an agent of `config` names that its runtime says it cannot run; only the
 * agents named in `agents` when given. Runtimes without `checkModel`, ids the registry lacks and
 * `unsure` answers add nothing. Never throws.
 */
export async function modelProblems(
  config: SssfConfig,
  registry: RuntimeRegistry,
  agents?: readonly string[],
): Promise<ConfigProblem[]> {
  const problems: ConfigProblem[] = [];
  const checks = config.agents.map(async (agent, index) => {
    if (agents !== undefined && !agents.includes(agent.name)) return [];
    const named = namedModels(agent, index);
    if (named.length === 0) return [];
    const runtime = await runtimeOf(registry, agent.codingAgent);
    const check = runtime?.checkModel?.bind(runtime);
    if (check === undefined) return [];
    const found: ConfigProblem[] = [];
    for (const { path, model } of named) {
      const answer: ModelCheck = await check({
        model,
        command: agent.command,
        env: agent.env,
        cwd: config.repoRoot,
      }).catch((error: unknown) => ({ status: "unsure" as const, detail: String(error) }));
      if (answer.status === "unknown") found.push({ path, message: `agent ${agent.name}: ${answer.error}` });
    }
    return found;
  });
  for (const found of await Promise.all(checks)) problems.push(...found);
  return problems;
}

/**
 * Refuses `config` when an agent names a model its runtime cannot run: a `ConfigError` listing each
 * (`agents[2].models[1]: agent builder: pi has no model "…"`), exit 2.
 */
export async function checkConfigModels(
  config: SssfConfig,
  registry: RuntimeRegistry,
  agents?: readonly string[],
): Promise<void> {
  const problems = await modelProblems(config, registry, agents);
  if (problems.length > 0) throw new ConfigError(config.file ?? "(built-in defaults)", problems);
}
