/**
 * The contract every coding-agent runtime implements. Leaf module: it imports nothing from the engine.
 * A runtime turns one send (system prompt + user prompt into a named session) into one
 * `AgentSendResult`; it never throws for agent failures, they are data.
 */

import type { SendSandbox } from "../sandbox/send-sandbox.js";

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** Token and cost counts of one send, or summed over several. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
}

export function addUsage(into: Usage, more: Usage): Usage {
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.cacheReadTokens += more.cacheReadTokens;
  into.cacheWriteTokens += more.cacheWriteTokens;
  into.costUsd += more.costUsd;
  return into;
}

/** One real tool call the agent made, normalized across runtimes. */
export interface ToolCall {
  tool: string;
  /** Display name like `bash: ls -la src`. */
  name: string;
  args: unknown;
  /** Result, truncated to a snippet. */
  result: string;
  ok: boolean;
  startedAt: Date;
  endedAt: Date;
}

export interface AgentTimeouts {
  /** Kill the call when the agent prints nothing for this long. */
  idleMs: number;
  /** Kill the call when it runs longer than this in total. */
  wallMs: number;
}

export interface AgentSendRequest {
  adwId: string;
  agent: string;
  /** sssf's name for this agent's conversation (from agent_map.json). */
  sessionId: string;
  /** True when this session id was used before: the runtime continues it. */
  resume: boolean;
  /** The runtime's own id for the session when it differs from `sessionId` (codex thread id…). */
  nativeSessionId?: string | undefined;
  /** The agent's `{runtime}_sessions/` folder: where the runtime keeps its own session state. */
  sessionDir: string;
  /** The agent's `raw_output.jsonl`: every stdout line is appended here live. */
  rawOutputPath: string;
  model: string;
  thinking: ThinkingLevel;
  /** Tool allowlist; `[]` means no tools at all. */
  tools: string[];
  systemPrompt: string;
  prompt: string;
  /** The run's working tree. */
  cwd: string;
  /**
   * The session's `context_handoff/` folder, where agents leave files for later agents. In a worktree
   * run it lies outside `cwd`; a runtime whose CLI limits writes to its workspace opens this folder
   * to it (and nothing else outside `cwd`). Absent when the caller has no such folder.
   */
  contextHandoffDir?: string | undefined;
  /** argv for runtimes that run a user-given program (exec). */
  command?: string[] | undefined;
  env?: Record<string, string> | undefined;
  timeouts: AgentTimeouts;
  /** Aborting kills the agent's whole process group. */
  signal?: AbortSignal | undefined;
  /**
   * The call's JSON Schema (its output type's `outputJsonSchema`), for JSON-contract calls only; absent
   * for Markdown-contract calls. A runtime whose CLI enforces a schema natively (claude `--json-schema`,
   * codex `--output-schema`) passes it on every send; others ignore it. The engine still validates
   * every reply against the output type, so the native layer only saves corrections.
   */
  outputSchema?: Record<string, unknown> | undefined;
  /**
   * USD this send may still spend before a budget of the run or the phase is exceeded (absent: no
   * cost budget). The engine enforces budgets itself; a runtime whose CLI caps spend natively
   * (claude `--max-budget-usd`) passes it on as a second line of defence, others ignore it.
   */
  maxBudgetUsd?: number | undefined;
  /**
   * Set when sssf runs this send's processes inside its OS sandbox: `cwd` and `contextHandoffDir` are
   * then the paths the agent sees inside the box (stable across runs), and `sandbox.hostCwd` is the
   * working tree on the host. A runtime whose CLI has a sandbox of its own makes it defer to the box.
   */
  sandbox?: SendSandbox | undefined;
}

export interface ProcessStart {
  pid: number;
  command: string[];
  cwd: string;
  startedAt: Date;
}

export interface ProcessEnd {
  pid: number;
  exitCode: number | null;
  signal: string | null;
  status: "exited" | "killed" | "timeout" | "spawn_error";
  stderrTail: string;
  endedAt: Date;
}

/** A tool call the agent just started (it ends with `onToolCall`); for live progress. */
export interface ToolStart {
  tool: string;
  /** Display name like `bash: ls -la src`. */
  name: string;
  args: unknown;
  startedAt: Date;
}

/** Callbacks through which a runtime reports what happens while the call runs. */
export interface AgentSendObserver {
  onProcessStart?(process: ProcessStart): void;
  onProcessEnd?(process: ProcessEnd): void;
  onToolCall?(call: ToolCall): void;
  /**
   * Optional, for live progress: a tool call has started, where the CLI's stream says so before the
   * call ends (its `onToolCall` follows). Runtimes whose stream reports a call only once it finished
   * never call it.
   */
  onToolStart?(call: ToolStart): void;
  /**
   * Optional, for live progress: text the agent wrote, in order, as its stream gives it. Pieces are
   * concatenated (a delta continues the line before it); a runtime that sees only whole messages
   * passes each one followed by a newline. Never the only copy of the reply: `AgentSendResult.text` is.
   */
  onText?(text: string): void;
  onUsage?(usage: Usage): void;
  /** A non-fatal message from the runtime (a retry, a warning line). */
  onLog?(message: string, details?: Record<string, unknown>): void;
}

export type SendErrorKind =
  | "spawn_failed"
  | "exit_nonzero"
  | "no_result"
  | "agent_error"
  | "idle_timeout"
  | "wall_timeout"
  | "aborted"
  | "model_unknown"
  /** The provider refused for a rate limit or an overload (HTTP 429/529): waiting and retrying helps. */
  | "rate_limited"
  /** The account's quota or plan limit is spent: it lifts at `resetsAt`, if ever. */
  | "usage_limit";

export interface AgentSendResult {
  ok: boolean;
  /** The final assistant message (empty when the call failed before one). */
  text: string;
  usage: Usage;
  /** Tokens in the context window after this send, when the runtime knows. */
  contextTokens: number | null;
  nativeSessionId?: string | undefined;
  errorKind?: SendErrorKind | undefined;
  /** One-paragraph error with the tail of stderr. */
  error?: string | undefined;
  exitCode?: number | null | undefined;
  /** `rate_limited`/`usage_limit`: how long to wait before retrying, when the CLI said. */
  retryAfterMs?: number | undefined;
  /** `rate_limited`/`usage_limit`: when the limit resets (ISO-8601), when the CLI said. */
  resetsAt?: string | undefined;
}

/** Where a runtime's CLI keeps its state: folders (sssf makes them when missing) and single files. */
export interface RuntimeStatePaths {
  folders: string[];
  files?: string[];
}

/** One finding of `sssf doctor` about an agent's runtime. */
export interface RuntimeCheck {
  ok: boolean;
  /** A passing check worth a look (`!` in `sssf doctor`, listed as a warning, exit status unchanged). */
  warning?: boolean;
  /** What was checked: `binary`, `version`, `model`, `ANTHROPIC_API_KEY`… (names only, never values). */
  item: string;
  detail: string;
}

/** What `sssf doctor` tells a runtime about one agent. */
export interface RuntimeDoctorRequest {
  agent: string;
  model: string;
  command?: string[] | undefined;
  env: Record<string, string>;
  cwd: string;
}

/** What `checkModel` is asked: one model an agent names (its `model`, or a rung of its `models`). */
export interface ModelCheckRequest {
  /** Never empty: an agent without a model has nothing to check. */
  model: string;
  /** The agent's `command`, for runtimes that find their CLI (and its catalog) through it. */
  command?: string[] | undefined;
  /** The agent's own `env` (the runtime adds the process's environment, as a send does). */
  env: Record<string, string>;
  cwd: string;
}

/**
 * What a runtime can say about a model without running its CLI or asking a provider: `known`, `unknown`
 * (`error` is one line naming the model, the same one its first send would fail with), or `unsure`
 * (its catalog could not be read, or its CLI sends any name to an endpoint that may serve it): the
 * first send then decides, as without the check.
 */
export type ModelCheck =
  | { status: "known" }
  | { status: "unknown"; error: string }
  | { status: "unsure"; detail: string };

/**
 * A coding-agent runtime. Contract: `send` never throws for anything the agent or its process does;
 * failures, timeouts and aborts come back as `{ ok: false, errorKind, error }`, after the whole
 * process group is gone.
 */
/** One send as a runtime's `raw_output.jsonl` recorded it, read back by `sssf db rebuild`. */
export interface RecordedSend {
  /** The final reply, or null when the stream ended without one (killed, timed out, crashed). */
  text: string | null;
  usage: Usage;
  toolCalls: ToolCall[];
}

export interface Runtime {
  readonly id: string;
  readonly specVersion: "sssf-runtime/1";
  send(request: AgentSendRequest, observer: AgentSendObserver): Promise<AgentSendResult>;
  /**
   * Optional: the folders (and files) the runtime's CLI keeps its own state in (its config, conversations, caches
   * and the credential it calls its model with), for the agent's environment `env`. Inside sssf's box
   * they stay writable; everything else outside the working tree is read-only.
   */
  statePaths?(env: Record<string, string | undefined>): RuntimeStatePaths;
  /**
   * Optional: checks for `sssf doctor` — the binary found and its version, the model resolvable, the
   * API-key variables present. Never throws; never spawns a model request.
   */
  doctor?(request: RuntimeDoctorRequest): Promise<RuntimeCheck[]>;
  /**
   * Optional: the sends an agent's `raw_output.jsonl` holds (its stdout lines, every send of the
   * session appended in order), for `sssf db rebuild` when `events.jsonl` is lost. A runtime whose
   * stream does not mark where one send ends leaves it out; the rebuild then says the replies are not
   * recoverable. Never throws.
   */
  recordedSends?(lines: readonly string[]): RecordedSend[];
  /**
   * Optional: whether the runtime can run `model`, from what it can read offline (its CLI's or
   * library's model catalog, the user's model config), as its `send` would decide before starting the
   * CLI. Checked for every `model` and `models` entry before a run starts (docs/reliability.md). Never
   * throws; never spawns a model request. A runtime that cannot tell leaves it out (exec).
   */
  checkModel?(request: ModelCheckRequest): Promise<ModelCheck>;
}
