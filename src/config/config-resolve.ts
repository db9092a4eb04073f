/**
 * Second stage of loading a config: a schema-valid wire value becomes `SssfConfig` (inheritance from
 * `defaults`, seconds to ms, absolute paths, boundary patterns in their enforced form), and the
 * problems a schema cannot see are collected: duplicate names, unknown runtimes, exec without a
 * command, unknown tool names, absolute or escaping boundary patterns, missing prompt files.
 */
import { statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { ConfigProblem } from "../errors/config-error.js";
import type { AgentTimeouts } from "../runtimes/runtime.js";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";
import { traceLocation } from "../trace/trace-location.js";
import { boundaryGlobProblem, expandBoundaryGlob } from "./boundary-globs.js";
import { AGENT_COLOR_PALETTE, type ConfigWire } from "./config-schema.js";
import { unknownToolProblems } from "./config-tools.js";
import type { AgentConfig, AgentLimits, QualitySuiteConfig, SssfConfig } from "./config-types.js";
import { fallbackEntries, fallbackProblems } from "./fallback-config.js";
import { modelLadder } from "./ladder-config.js";
import type { ModelPrice } from "./prices.js";

/** What resolving needs besides the wire value. */
export interface ResolveContext {
  /** Absolute repo root; relative paths in the file resolve against it. */
  repoRoot: string;
  /** Absolute path of the YAML file. */
  file: string;
  knownRuntimes: readonly string[];
}

/** The resolved config and every semantic problem found on the way. */
export interface ResolvedConfig {
  config: SssfConfig;
  /** Empty when the config is usable. */
  problems: ConfigProblem[];
}

/** Repo-relative POSIX path of `target`, or undefined when it lies outside the repo. */
function repoRelative(repoRoot: string, target: string): string | undefined {
  const relative = path.relative(repoRoot, target);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join("/");
}

/**
 * The repo-local workflows (`adws/adw_<name>.ts|.mts|.js|.mjs`) and the modules they import: the code
 * that governs the agents, protected from them by default.
 */
export const REPO_WORKFLOW_GLOBS = ["adws/adw_*.{ts,mts,js,mjs}", "adws/adw_modules/**"] as const;

/** The brief's default globs, following a moved data dir or config file so they stay protected. */
function defaultProtectedFiles(context: ResolveContext, dataDir: string): string[] {
  const globs = [".env", ".env.*", "adws/adw_sssf_config/**", ...REPO_WORKFLOW_GLOBS];
  const dataRelative = repoRelative(context.repoRoot, dataDir);
  if (dataRelative) globs.push(`${dataRelative}/prompt_engineering/**`);
  const fileRelative = repoRelative(context.repoRoot, context.file);
  if (fileRelative && !fileRelative.startsWith("adws/adw_sssf_config/")) globs.push(fileRelative);
  return globs;
}

function checkFile(file: string): string | undefined {
  try {
    return statSync(file).isFile() ? undefined : `not a file: ${file}`;
  } catch {
    return `file not found: ${file}`;
  }
}

/** Wire seconds to engine milliseconds; `fallback` (already in ms) when the key is absent. */
function toMs(seconds: number | undefined, fallback = 0): number {
  return seconds === undefined ? fallback : Math.round(seconds * 1000);
}

function unknownRuntime(id: string, known: readonly string[]): string {
  return `unknown coding agent ${JSON.stringify(id)} (known: ${known.join(", ")})`;
}

/** The runtime whose program defines its own tools: its agents' `tools` are passed on as written. */
const FREE_FORM_TOOLS_RUNTIME = "exec";

/**
 * `patterns` in their enforced form (`specs/` → `specs/**`), and one problem per pattern that cannot be
 * enforced as written, addressed `<where>[<index>]`.
 */
function boundaryPatterns(
  patterns: readonly string[],
  where: string,
  repoRoot: string,
  problems: ConfigProblem[],
): string[] {
  patterns.forEach((pattern, index) => {
    const problem = boundaryGlobProblem(pattern, repoRoot);
    if (problem) problems.push({ path: `${where}[${index}]`, message: problem });
  });
  return patterns.map(expandBoundaryGlob);
}

/**
 * Whether `defaults.tools` reaches a runtime that takes only sssf's tool names: the default runtime is
 * not exec, or an agent that inherits the list runs another runtime.
 */
function defaultToolsChecked(wire: ConfigWire): boolean {
  const fallback = wire.defaults.coding_agent;
  return (
    fallback !== FREE_FORM_TOOLS_RUNTIME ||
    wire.agents.some(
      (agent) => agent.tools === undefined && (agent.coding_agent ?? fallback) !== FREE_FORM_TOOLS_RUNTIME,
    )
  );
}

/** An agent's `limits:` block in code form (undefined: no block; undefined keys: no limit). */
function agentLimits(wire: ConfigWire["agents"][number]["limits"]): AgentLimits | undefined {
  if (wire === undefined) return undefined;
  return {
    maxCostUsd: wire?.max_cost_usd,
    maxTokens: wire?.max_tokens,
    maxSeconds: wire?.max_seconds,
  };
}

/**
 * `prices:` in code form (undefined when the file has none); a missing cache price is the input
 * price, so spend is never understated.
 */
function modelPrices(wire: ConfigWire["prices"]): Record<string, ModelPrice> | undefined {
  if (Object.keys(wire).length === 0) return undefined;
  const prices: Record<string, ModelPrice> = {};
  for (const [model, entry] of Object.entries(wire)) {
    prices[model] = {
      input: entry.input,
      output: entry.output,
      cacheRead: entry.cache_read ?? entry.input,
      cacheWrite: entry.cache_write ?? entry.input,
    };
  }
  return prices;
}

/**
 * Resolves a schema-valid wire value. Never throws: every semantic problem is returned, all at once,
 * next to a config that is only meaningful when `problems` is empty.
 */
/** A `sandbox:` path made absolute: `~` is the home folder, a relative path is from the repo root. */
function sandboxPath(entry: string, repoRoot: string): string {
  if (entry === "~" || entry.startsWith("~/")) return path.join(homedir(), entry.slice(1));
  return path.resolve(repoRoot, entry);
}

const HOST_ENTRY = /^(\*\.)?[A-Za-z0-9._-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

function sandboxNetwork(
  network: "open" | string[],
  where: string,
  problems: ConfigProblem[],
): "open" | string[] {
  if (network === "open") return network;
  network.forEach((entry, index) => {
    if (!HOST_ENTRY.test(entry))
      problems.push({
        path: `${where}.network[${index}]`,
        message: `expected a host name like api.anthropic.com, *.example.com or 127.0.0.1:8080, got ${JSON.stringify(entry)}`,
      });
  });
  return network;
}

function sandboxSettings(
  wire: ConfigWire["sandbox"],
  where: string,
  repoRoot: string,
  problems: ConfigProblem[],
): SandboxSettings {
  return {
    mode: wire.mode,
    allowWrite: wire.allow_write.map((entry) => sandboxPath(entry, repoRoot)),
    denyRead: wire.deny_read.map((entry) => sandboxPath(entry, repoRoot)),
    network: sandboxNetwork(wire.network, `${where}`, problems),
  };
}

/** An agent's sandbox: its own keys over the top-level ones. */
function agentSandbox(
  base: SandboxSettings,
  own: ConfigWire["agents"][number]["sandbox"],
  where: string,
  repoRoot: string,
  problems: ConfigProblem[],
): SandboxSettings {
  if (own === undefined) return base;
  return {
    mode: own.mode ?? base.mode,
    allowWrite: own.allow_write?.map((entry) => sandboxPath(entry, repoRoot)) ?? base.allowWrite,
    denyRead: own.deny_read?.map((entry) => sandboxPath(entry, repoRoot)) ?? base.denyRead,
    network:
      own.network === undefined ? base.network : sandboxNetwork(own.network, `${where}.sandbox`, problems),
  };
}

export function resolveConfig(wire: ConfigWire, context: ResolveContext): ResolvedConfig {
  const { repoRoot, knownRuntimes } = context;
  const problems: ConfigProblem[] = [];
  const resolvePath = (target: string) => path.resolve(repoRoot, target);
  const defaults = wire.defaults;
  const dataDir = resolvePath(defaults.data_dir);
  const defaultTimeouts: AgentTimeouts = {
    idleMs: toMs(defaults.timeouts.idle_seconds),
    wallMs: toMs(defaults.timeouts.wall_seconds),
  };
  if (!knownRuntimes.includes(defaults.coding_agent)) {
    problems.push({
      path: "defaults.coding_agent",
      message: unknownRuntime(defaults.coding_agent, knownRuntimes),
    });
  }
  if (defaultToolsChecked(wire)) problems.push(...unknownToolProblems(defaults.tools, "defaults.tools"));
  const protectedFiles = defaults.protected_files
    ? boundaryPatterns(defaults.protected_files, "defaults.protected_files", repoRoot, problems)
    : defaultProtectedFiles(context, dataDir);

  const sandbox = sandboxSettings(wire.sandbox, "sandbox", repoRoot, problems);
  const firstIndexByName = new Map<string, number>();
  const agents = wire.agents.map((agent, index): AgentConfig => {
    const where = `agents[${index}]`;
    const firstIndex = firstIndexByName.get(agent.name);
    if (firstIndex === undefined) firstIndexByName.set(agent.name, index);
    else {
      problems.push({
        path: `${where}.name`,
        message: `duplicate agent name ${JSON.stringify(agent.name)} (also agents[${firstIndex}]); rename one of them, names are unique`,
      });
    }
    const codingAgent = agent.coding_agent ?? defaults.coding_agent;
    // An inherited unknown runtime is already reported once, at defaults.coding_agent.
    if (agent.coding_agent !== undefined && !knownRuntimes.includes(agent.coding_agent)) {
      problems.push({
        path: `${where}.coding_agent`,
        message: unknownRuntime(agent.coding_agent, knownRuntimes),
      });
    }
    if (codingAgent === "exec" && agent.command === undefined) {
      problems.push({ path: `${where}.command`, message: "required when coding_agent is exec" });
    }
    // An inherited list is checked once, at defaults.tools.
    if (agent.tools !== undefined && codingAgent !== FREE_FORM_TOOLS_RUNTIME) {
      problems.push(...unknownToolProblems(agent.tools, `${where}.tools`));
    }
    const writes = boundaryPatterns(agent.writes, `${where}.writes`, repoRoot, problems);
    const promptDir = path.join(dataDir, "prompt_engineering", agent.name);
    const systemPromptPath = resolvePath(
      agent.prompt_engineering?.system ?? path.join(promptDir, "system.md"),
    );
    const userPromptPath = resolvePath(agent.prompt_engineering?.user ?? path.join(promptDir, "user.md"));
    for (const [key, file] of [
      ["system", systemPromptPath],
      ["user", userPromptPath],
    ] as const) {
      const problem = checkFile(file);
      if (problem)
        problems.push({
          path: `${where}.prompt_engineering.${key}`,
          message: `${problem}; create it ("sssf init" writes the default prompts) or set ${where}.prompt_engineering.${key} to an existing file`,
        });
    }
    const thinking = agent.thinking ?? defaults.thinking;
    const ladder = modelLadder(where, agent.model, agent.models, defaults.model, problems);
    return {
      name: agent.name,
      purpose: agent.purpose,
      color: agent.color ?? AGENT_COLOR_PALETTE[index % AGENT_COLOR_PALETTE.length]!,
      ...ladder,
      thinking: thinking === false ? "off" : thinking,
      codingAgent,
      command: agent.command,
      systemPromptPath,
      userPromptPath,
      tools: [...(agent.tools ?? defaults.tools)],
      writes,
      timeouts: {
        idleMs: toMs(agent.timeouts?.idle_seconds, defaultTimeouts.idleMs),
        wallMs: toMs(agent.timeouts?.wall_seconds, defaultTimeouts.wallMs),
      },
      limits: agentLimits(agent.limits),
      fallback: fallbackEntries(agent.fallback),
      sandbox: agentSandbox(sandbox, agent.sandbox, where, repoRoot, problems),
      env: { ...agent.env },
    };
  });

  const quality: Record<string, QualitySuiteConfig> = {};
  for (const [name, suite] of Object.entries(wire.quality)) {
    quality[name] = {
      name,
      command: [...suite.command],
      timeoutMs: toMs(suite.timeout_seconds),
      env: { ...suite.env },
      ...(suite.baseline === false ? { baseline: false as const } : {}),
      ...(suite.report === undefined
        ? {}
        : {
            report:
              typeof suite.report === "string"
                ? { format: suite.report }
                : { format: suite.report.format, ...(suite.report.file ? { file: suite.report.file } : {}) },
          }),
    };
  }

  const config: SssfConfig = {
    file: context.file,
    repoRoot,
    defaults: {
      codingAgent: defaults.coding_agent,
      model: defaults.model,
      thinking: defaults.thinking === false ? "off" : defaults.thinking,
      tools: [...defaults.tools],
      timeouts: defaultTimeouts,
    },
    agents,
    protectedFiles,
    dataDir,
    sessionsDir: path.join(dataDir, "sessions"),
    // SSSF_DB: every worker, the CLI and the UI of one host share one trace (docs/cluster.md).
    dbPath: traceLocation(
      repoRoot,
      process.env.SSSF_DB || (wire.trace.url ?? wire.observability.db ?? path.join(dataDir, "sssf.db")),
    ),
    tracePostgres: {
      maxConnections: wire.trace.postgres.max_connections,
      listenUrl: wire.trace.postgres.listen_url ?? null,
    },
    limits: {
      jsonFixAttempts: wire.limits.json_fix_attempts,
      retries: wire.limits.retries,
      maxResultBytes: wire.limits.max_result_bytes,
      maxCostUsd: wire.limits.max_cost_usd,
      maxTokens: wire.limits.max_tokens,
      maxRunSeconds: wire.limits.max_run_seconds,
      rateLimitWaitMs:
        wire.limits.rate_limit_wait_seconds === undefined
          ? undefined
          : toMs(wire.limits.rate_limit_wait_seconds),
      maxBestOf: wire.limits.max_best_of,
    },
    prices: modelPrices(wire.prices),
    quality,
    merge: { strategy: wire.merge.strategy },
    ...(wire.observability.otlp === undefined
      ? {}
      : {
          otlp: {
            endpoint: wire.observability.otlp.endpoint,
            headers: { ...wire.observability.otlp.headers },
          },
        }),
    engine: {
      restate: {
        ingress: wire.engine.restate.ingress ?? null,
        admin: wire.engine.restate.admin ?? null,
        pool: wire.engine.restate.pool ?? null,
        runTimeoutMs: wire.engine.restate.run_timeout_seconds * 1000,
      },
    },
  };
  problems.push(...fallbackProblems(agents));
  return { config, problems };
}
