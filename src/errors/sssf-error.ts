/** Stable machine-readable codes; the CLI maps them to exit statuses. */
export type SssfErrorCode =
  | "config_invalid"
  | "usage"
  | "session_locked"
  | "phase_failed"
  | "agent_unknown"
  | "runtime_unknown"
  | "sandbox_unavailable"
  | "git_failed"
  | "merge_refused"
  | "not_a_git_repo"
  | "interrupted"
  | "internal";

export interface SssfErrorOptions {
  cause?: unknown;
  /** Exit status the CLI uses for this error (default: 2 for usage/config errors, 1 otherwise). */
  exitCode?: number;
}

/**
 * Base of every error sssf raises on purpose (misuse, bad config, a failed phase).
 * Contract: `message` is one actionable line naming the file, field or flag.
 */
export class SssfError extends Error {
  readonly code: SssfErrorCode;
  readonly exitCode: number;

  constructor(code: SssfErrorCode, message: string, options: SssfErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SssfError";
    this.code = code;
    this.exitCode = options.exitCode ?? (code === "config_invalid" || code === "usage" ? 2 : 1);
  }
}

export function isSssfError(value: unknown): value is SssfError {
  return value instanceof SssfError;
}
