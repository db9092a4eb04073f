import type { AgentTimeouts, ThinkingLevel } from "../runtimes/runtime.js";

/** One agent of the roster with every default applied and every path made absolute. */
export interface AgentConfig {
  name: string;
  purpose: string;
  /** CSS color used by the terminal and the UI. */
  color: string;
  model: string;
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
  env: Record<string, string>;
}

export interface QualitySuiteConfig {
  name: string;
  command: string[];
  timeoutMs: number;
  env: Record<string, string>;
}

export interface LimitsConfig {
  /** Same-session corrections after invalid JSON, per gate round (default 2). */
  jsonFixAttempts: number;
  /** Default gate-violation corrections for an agent phase (default 1). */
  retries: number;
  /** Largest final agent message kept for parsing, in bytes. */
  maxResultBytes: number;
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
  limits: LimitsConfig;
  quality: Record<string, QualitySuiteConfig>;
}

export function findAgent(config: SssfConfig, name: string): AgentConfig | undefined {
  return config.agents.find((a) => a.name === name);
}
