/**
 * The script format of the scripted exec agent (`sssf/testing`), and where the agent keeps its state
 * next to the script file. Field names are snake_case: scripts are JSON on disk.
 */

/**
 * One scripted tool call. Its actions really happen, relative to the request's cwd, in this order:
 * `write_file`, `delete_file`, `rename_file`, `bash`.
 */
export interface ScriptedToolCall {
  tool: string;
  /**
   * Defaults to `{ path }` for `write_file`/`delete_file`, `{ from, to }` for `rename_file`,
   * `{ command }` for `bash`, else `{}`.
   */
  args?: unknown;
  /** Defaults to what the action did (`bash`: its stdout). */
  result?: string;
  /** Defaults to true (`bash`: its exit status is 0). */
  ok?: boolean;
  /** How long the tool takes: the agent spends at least this long on it (default: the real time). */
  duration_ms?: number;
  name?: string;
  write_file?: { path: string; content: string };
  delete_file?: string;
  /** Moves a file or folder (creating the target's folders). */
  rename_file?: { from: string; to: string };
  /** A shell command run with `/bin/sh -c` in the request's cwd. */
  bash?: string;
}

/** Counts reported in one usage line; missing fields are 0. */
export interface ScriptedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  cost?: number;
  context_tokens?: number;
}

/**
 * One reply of the scripted agent. Order of play: install `ignore_sigterm`, write `stderr`,
 * `spawn_grandchild`, sleep `delay_ms`, the tool calls, then `hang` (if set, nothing after happens),
 * usage, `output_bytes` of noise, the result line (unless `no_result`), exit with `exit_code`.
 */
export interface ScriptedTurn {
  /** Only used when the prompt contains this substring. */
  match?: string;
  /** Only used when the request's `model` is exactly this (a fallback model's turns). */
  match_model?: string;
  /** Only used when the request's `cwd` ends with this (one best-of attempt's worktree: `attempt-2`). */
  match_cwd?: string;
  /** The result text (default ""). */
  reply?: string;
  tool_calls?: ScriptedToolCall[];
  usage?: ScriptedUsage;
  /** Sleep before replying. */
  delay_ms?: number;
  /** Never reply, never exit. */
  hang?: boolean;
  /** Ignore SIGTERM, so only SIGKILL ends the agent. */
  ignore_sigterm?: boolean;
  /** Start a long-lived child in the agent's process group; its pid goes to `<session_dir>/grandchild.pid`. */
  spawn_grandchild?: boolean;
  /** Extra non-JSON noise on stdout before the result, in lines of 100 bytes (newline included). */
  output_bytes?: number;
  /** Prose of this many bytes put before `reply` in the result text. */
  result_padding_bytes?: number;
  /** Exit status after the result (default 0). */
  exit_code?: number;
  /** Written to stderr. */
  stderr?: string;
  /** Exit without a result line. */
  no_result?: boolean;
  /**
   * Report a failure in the result line (`error`), with the protocol's `error_kind` and reset hint
   * when given: a rate limit or spent quota as the agent's provider reported it.
   */
  error?: {
    message: string;
    kind?: "rate_limited" | "usage_limit";
    retry_after_ms?: number;
    resets_at?: string;
  };
  /** Never consumed: matches again on every later send. */
  repeat?: boolean;
}

/** The content of a script file. */
export interface Script {
  turns: ScriptedTurn[];
}

/** One request the scripted agent received. `turn` is the script index played, null when refused. */
export interface ScriptedSend {
  session_id: string;
  resume: boolean;
  prompt: string;
  system_prompt: string;
  turn: number | null;
}

/** Which turns are used up (persisted between sends). */
export function scriptStatePath(scriptPath: string): string {
  return `${scriptPath}.state.json`;
}

/** Every send as one JSON line, across sessions, in arrival order. */
export function scriptSendsPath(scriptPath: string): string {
  return `${scriptPath}.sends.jsonl`;
}

/** Folder whose existence serializes concurrent sends to one script. */
export function scriptLockPath(scriptPath: string): string {
  return `${scriptPath}.lock`;
}
