import type { AgentTimeouts, ThinkingLevel } from "../runtimes/runtime.js";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";
import type { ModelPrice } from "./prices.js";
import type { SuiteReportConfig } from "./report-formats.js";

/** Budgets of each phase an agent owns (`agents[].limits`); an absent key is no limit. */
export interface AgentLimits {
  maxCostUsd?: number | undefined;
  maxTokens?: number | undefined;
  maxSeconds?: number | undefined;
}

/** One agent of the roster with every default applied and every path made absolute. */
export interface AgentConfig {
  name: string;
  purpose: string;
  /** CSS color used by the terminal and the UI. */
  color: string;
  model: string;
  /**
   * `models:` — the model ladder, `model` first: after a phase's corrections run out on one model it
   * starts again, fresh, on the next (docs/reliability.md). Absent: no ladder.
   */
  models?: string[] | undefined;
  thinking: ThinkingLevel;
  /** Runtime id: pi, claude_code, codex, gemini, opencode or exec. */
  codingAgent: string;
  /** argv of the program for `coding_agent: exec`. */
  command: string[] | undefined;
  systemPromptPath: string;
  userPromptPath: string;
  /** sssf tool names (`src/runtimes/tool-names.ts`); free-form for `coding_agent: exec`. */
  tools: string[];
  /** Repo-relative globs this agent may write, in their enforced form (`specs/` → `specs/**`). */
  writes: string[];
  timeouts: AgentTimeouts;
  /** Budgets of each phase this agent owns (absent: none); a phase's own budget overrides them. */
  limits?: AgentLimits | undefined;
  /**
   * `fallback:` — where a rate-limited or out-of-quota send goes next, in order: a model of this
   * agent's runtime, or another agent (same output contract). Absent: none.
   */
  fallback?: FallbackEntry[] | undefined;
  /** The OS sandbox this agent runs in: the top-level `sandbox:` with the agent's own keys over it. */
  sandbox: SandboxSettings;
  env: Record<string, string>;
}

/** One entry of `agents[].fallback`: a model of the agent's own runtime, or another agent. */
export type FallbackEntry = { model: string } | { agent: string };

/** `limits.rate_limit_wait_seconds` when the file does not set it. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 300_000;

/** `limits.max_best_of` when the file does not set it. */
export const DEFAULT_MAX_BEST_OF = 5;

export interface QualitySuiteConfig {
  name: string;
  command: string[];
  timeoutMs: number;
  env: Record<string, string>;
  /**
   * `false` (`baseline: false` in the config): a workflow never runs this suite at the base commit
   * before its fix rounds. Absent: it does, when the suite fails after a change.
   */
  baseline?: false | undefined;
  /** `report:` — where the suite's per-test results are and in which format; absent: exit code only. */
  report?: SuiteReportConfig | undefined;
}

export interface LimitsConfig {
  /** Same-session corrections after invalid JSON, per gate round (default 2). */
  jsonFixAttempts: number;
  /** Default gate-violation corrections for an agent phase (default 1). */
  retries: number;
  /** Largest final agent message kept for parsing, in bytes. */
  maxResultBytes: number;
  /** The session's cost in USD past which agent phases fail (absent: no limit). */
  maxCostUsd?: number | undefined;
  /** The session's tokens (every kind) past which agent phases fail (absent: no limit). */
  maxTokens?: number | undefined;
  /** Seconds since this run started past which agent phases fail (absent: no limit). */
  maxRunSeconds?: number | undefined;
  /**
   * The longest wait, in total, for one send refused by a rate limit before its agent's next
   * fallback (absent: `DEFAULT_RATE_LIMIT_WAIT_MS`).
   */
  rateLimitWaitMs?: number | undefined;
  /** The most attempts of a best-of phase (absent: `DEFAULT_MAX_BEST_OF`). */
  maxBestOf?: number | undefined;
}

export interface SssfConfig {
  /** The YAML file loaded, or null when the built-in defaults were used. */
  file: string | null;
  /** Absolute repo root: the working tree runs act on; relative config paths resolve against it. */
  repoRoot: string;
  defaults: {
    codingAgent: string;
    model: string;
    thinking: ThinkingLevel;
    tools: string[];
    timeouts: AgentTimeouts;
  };
  agents: AgentConfig[];
  /** Repo-relative globs no agent may write (protected wins over `writes`), in their enforced form. */
  protectedFiles: string[];
  /** Absolute `adws/adw_data` (or the configured data_dir). */
  dataDir: string;
  /** Absolute `<data_dir>/sessions`. */
  sessionsDir: string;
  /** Absolute path of the trace database. */
  dbPath: string;
  /** `trace.postgres`: the pool bound and where followers LISTEN (docs/cluster.md#scale). Absent: the defaults. */
  tracePostgres?: { maxConnections: number; listenUrl: string | null };
  limits: LimitsConfig;
  /** `engine:` — where a Restate cluster listens (docs/cluster.md); null where the config says nothing. */
  engine?: EngineConfig;
  /**
   * `prices:` by model id, USD per million tokens, consulted before sssf's defaults
   * (`DEFAULT_PRICES`) for runtimes that report no cost. Absent: the defaults only.
   */
  prices?: Record<string, ModelPrice> | undefined;
  quality: Record<string, QualitySuiteConfig>;
  /**
   * `observability.otlp:` — where each run's OpenTelemetry spans go (docs/observability.md); the
   * `OTEL_EXPORTER_OTLP_*` environment variables win over it. Absent or null: the file says nothing.
   */
  otlp?: OtlpConfig | null;
  /** `merge:` — how `sssf merge` lands a run's branch. Absent: `ff`. */
  merge?: { strategy: MergeStrategy };
}

/** `observability.otlp` in code form: the endpoint as written, and the headers sent with every export. */
export interface OtlpConfig {
  endpoint: string;
  headers: Record<string, string>;
}

/** `merge.strategy`: fast-forward only, or a merge commit when the base moved. */
export type MergeStrategy = "ff" | "merge-commit";

/** The `engine.restate` section in code form. */
export interface EngineConfig {
  restate: { ingress: string | null; admin: string | null; pool: string | null; runTimeoutMs: number };
}

export function findAgent(config: SssfConfig, name: string): AgentConfig | undefined {
  return config.agents.find((a) => a.name === name);
}
