import { ConfigError } from "../errors/config-error.js";
import { isSssfError } from "../errors/sssf-error.js";
import { UsageError } from "../errors/usage-error.js";
import { redactSecrets } from "../util/secrets/redact.js";
import { jsonTerminalSafe, terminalSafe } from "../util/terminal-text.js";

// Messages quote what failed (config values, paths, flags, agents' output, a git remote with its token):
// redacted, and shown, never acted on by the terminal.
const print = (text: string) => process.stderr.write(terminalSafe(redactSecrets(text), { multiline: true }));

/** One problem of an error in `--json` output (a config error has one per field). */
export interface JsonErrorProblem {
  field: string | null;
  message: string;
}

/** What `--json` commands print on stdout instead of their result when they fail (docs/json-output.md). */
export interface JsonError {
  error: {
    /** The stable `SssfErrorCode` (`config_invalid`, `usage`, …); `internal` for an unexpected error. */
    code: string;
    message: string;
    /** The flag or config field at fault (`--agent`, `agents[1].name`), or null. */
    field: string | null;
    /** The config file at fault, or null. */
    file: string | null;
    /** Every problem, for errors that list several (a config error); [] otherwise. */
    problems: JsonErrorProblem[];
  };
}

/** The `--json` form of `error` (never throws). */
export function jsonError(error: unknown): JsonError {
  if (error instanceof ConfigError) {
    const problems = error.problems.map((p) => ({
      field: p.path === "" ? null : p.path,
      message: p.message,
    }));
    return {
      error: {
        code: error.code,
        message: error.message,
        field: problems[0]?.field ?? null,
        file: error.file,
        problems,
      },
    };
  }
  if (isSssfError(error)) {
    const field = error instanceof UsageError ? (error.flag ?? null) : fieldOf(error);
    const problems = problemsOf(error);
    return { error: { code: error.code, message: error.message, field, file: null, problems } };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  return {
    error: {
      code: "internal",
      message: `unexpected error: ${err.message}`,
      field: null,
      file: null,
      problems: [],
    },
  };
}

/** Errors that carry a field of their own (`field`) or a list of problems (`problems`). */
function fieldOf(error: object): string | null {
  const field = (error as { field?: unknown }).field;
  return typeof field === "string" ? field : null;
}

function problemsOf(error: object): JsonErrorProblem[] {
  const problems = (error as { problems?: unknown }).problems;
  if (!Array.isArray(problems)) return [];
  return problems.flatMap((p: { field?: unknown; message?: unknown }) =>
    typeof p?.message === "string"
      ? [{ field: typeof p.field === "string" ? p.field : null, message: p.message }]
      : [],
  );
}

/** Options of {@link reportError}. */
export interface ReportErrorOptions {
  /** `--json`: the error as one JSON object on stdout ({@link JsonError}), nothing on stderr. */
  json?: boolean;
}

/**
 * Prints an error the way users should see it: one actionable line (a config error lists each
 * problem), a stack only with --verbose; controls in the text as visible escapes (`terminalSafe`).
 * With `json`, one {@link JsonError} object on stdout instead (secrets redacted, `jsonTerminalSafe`).
 * Returns the exit status, the same either way.
 */
export function reportError(error: unknown, verbose: boolean, options: ReportErrorOptions = {}): number {
  const status = isSssfError(error) ? error.exitCode : 1;
  if (options.json === true) {
    const body = redactSecrets(JSON.stringify(jsonError(error)));
    process.stdout.write(`${jsonTerminalSafe(body)}\n`);
    if (verbose && error instanceof Error && error.stack) print(`${error.stack}\n`);
    return status;
  }
  if (isSssfError(error)) {
    print(`sssf: ${error.message}\n`);
    if (verbose && error.stack) print(`${error.stack}\n`);
    return error.exitCode;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  print(`sssf: unexpected error: ${err.message}${verbose ? "" : " (run with --verbose for details)"}\n`);
  if (verbose && err.stack) print(`${err.stack}\n`);
  return 1;
}
