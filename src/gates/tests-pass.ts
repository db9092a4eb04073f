import { defineGate, type Gate, type SuiteResult } from "./gate.js";

/** Lines of the suite's output tail quoted in the check note. */
const QUOTED_LINES = 20;

/**
 * A gate that runs the named quality suite through `context.runSuite(suite)` and records one check
 * "suite <name>": ok when the suite passed; the note gives the exit code, the duration and the last
 * lines of output. Works with any envelope. Rejects only when `runSuite` rejects (an unknown suite name
 * is a configuration error, not a failed gate).
 * @example gates: [testsPass("test")]
 */
export function testsPass(suite: string): Gate<unknown> {
  return defineGate<unknown>(`testsPass(${suite})`, async (_envelope, context, report) => {
    const result = await context.runSuite(suite);
    report.check(`suite ${suite}`, result.passed, describeSuiteResult(result));
  });
}

function describeSuiteResult(result: SuiteResult): string {
  const exit =
    result.exitCode === null ? "no exit code (killed or not started)" : `exit code ${result.exitCode}`;
  const head = `${result.passed ? "passed" : "failed"}: ${exit} after ${result.durationMs} ms`;
  const lines = result.outputTail.replace(/\s+$/, "").split("\n");
  const tail = lines.slice(-QUOTED_LINES).join("\n");
  return tail === "" ? `${head}, no output` : `${head}; last output:\n${tail}`;
}
