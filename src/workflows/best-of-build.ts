import type { BestOfAttempt, BestOfOptions, Run } from "../api/run-api.js";

/**
 * `--best-of N` on the `build` phase: N attempts judged by their gates, then by `checkSuites` run in
 * each attempt's worktree (every suite must pass; the first failing one is the reason).
 */
export function bestOfBuild(
  run: Run,
  step: { name: string; checkSuites?: readonly string[] | undefined },
): { bestOf?: BestOfOptions } {
  if (run.bestOf === undefined || step.name !== "build") return {};
  const suites = step.checkSuites ?? [];
  const check = async (attempt: BestOfAttempt) => {
    for (const suite of suites) {
      const result = await attempt.runSuite(suite);
      if (!result.passed) return { ok: false, summary: result.summary };
    }
    return { ok: true, summary: `${suites.join(", ")} passed` };
  };
  return { bestOf: { attempts: run.bestOf, mode: "best", ...(suites.length > 0 ? { check } : {}) } };
}
