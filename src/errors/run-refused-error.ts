import { SssfError } from "./sssf-error.js";
import { UsageError } from "./usage-error.js";

/** One reason a run cannot start, with the flag or field it concerns. */
export interface RunProblem {
  /** `--agent`, `agents`, `quality`, or null. */
  field: string | null;
  message: string;
}

/**
 * Several reasons a run cannot start, found together before anything was created (an unknown agent
 * and a missing quality suite, say), so they are fixed in one pass. Exit code 2.
 */
export class RunRefusedError extends SssfError {
  readonly problems: RunProblem[];
  /** The first problem's field. */
  readonly field: string | null;

  constructor(errors: readonly SssfError[]) {
    const problems = errors.map((error) => ({
      field:
        error instanceof UsageError ? (error.flag ?? null) : ((error as { field?: string }).field ?? null),
      message: error.message,
    }));
    const allUsage = errors.every((error) => error.code === "usage");
    super(
      allUsage ? "usage" : "config_invalid",
      `the run cannot start (${problems.length} problems):\n${problems.map((p) => `  ${p.message}`).join("\n")}`,
      { exitCode: 2 },
    );
    this.name = "RunRefusedError";
    this.problems = problems;
    this.field = problems[0]?.field ?? null;
  }
}
