import { describe, expect, it } from "vitest";
import { createTerminalReporter } from "../../src/cli/report/terminal-reporter.js";
import { replayTrace } from "../../src/cli/report/trace-replay.js";
import { failedTestNames } from "../../src/session/reporter.js";
import { eventRow } from "../../src/trace/rows.js";
import { phaseRow } from "../trace/trace-fixtures.js";

const SECRET = "sk-ant-api03-FAILEDTESTNAMESECRET0123456789abcdefghij";
const phase = phaseRow("run", 3, new Date(0).toISOString(), { id: "run-p03", name: "test", kind: "code" });
const failedPhase = { ...phase, status: "fail" as const, duration_ms: 1200, error: "test: failed (exit 1)" };

/** A stream that keeps what it is given, a terminal's (`isTTY`) or a pipe's. */
function stream(isTTY: boolean) {
  const writes: string[] = [];
  const out = { isTTY, columns: 100, write: (text: string) => writes.push(String(text)) > 0 };
  return { out, text: () => writes.join("").replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "") };
}

/** 25 failing tests, one of them with a secret and a control character in its name. */
const failedTests = [
  ...Array.from({ length: 24 }, (_, i) => `tests/test_math.py::test_case_${i + 1}`),
  `tests/test_keys.py::test_key[${SECRET}]\x1b[2J`,
];

describe("a failing suite's test names on the terminal", () => {
  it("reads failed_tests as names or {file, name} objects, and nothing else", () => {
    expect(
      failedTestNames({ failed_tests: ["a", { name: "b", file: "f.ts" }, { name: "c" }, 3, null] }),
    ).toEqual(["a", "f.ts › b", "c"]);
    expect(failedTestNames({ output_tail: "x" })).toEqual([]);
    expect(failedTestNames(null)).toEqual([]);
  });

  it("prints the first 20 names after the ✘ line, redacted and safe, the same piped, live and replayed from the trace", () => {
    const output = { suite: "test", passed: false, tail: "FAILED 25 tests", logPath: null, failedTests };
    const piped = stream(false);
    const plain = createTerminalReporter(piped.out, "/");
    plain.phaseStarted(phase);
    plain.suiteOutput?.(phase, output);
    plain.phaseEnded(failedPhase);
    const lines = piped.text().split("\n");
    const end = lines.findIndex((line) => line.startsWith("✘ 03 test"));
    expect(lines.slice(end + 1, end + 3)).toEqual([
      "   test: 25 failing tests:",
      "   ✘ tests/test_math.py::test_case_1",
    ]);
    expect(lines[end + 21]).toBe("   ✘ tests/test_math.py::test_case_20");
    expect(lines[end + 22]).toBe("   … and 5 more (full log below)");
    expect(lines[end + 23]).toBe("   test output:");
    expect(lines[end + 24]).toBe("   │ FAILED 25 tests");
    expect(piped.text()).not.toContain("test_case_21");

    // A name is redacted and its control characters made visible.
    const few = stream(false);
    const reporter = createTerminalReporter(few.out, "/");
    reporter.suiteOutput?.(phase, { ...output, failedTests: failedTests.slice(-2) });
    expect(few.text()).toContain("   ✘ tests/test_keys.py::test_key[[redacted:anthropic-api-key]]␛[2J\n");
    expect(few.text()).not.toContain(SECRET);

    // The live view prints the same permanent lines above its area.
    const tty = stream(true);
    const live = createTerminalReporter(tty.out, "/", { mode: "live", intervalMs: 0 });
    live.phaseStarted(phase);
    live.suiteOutput?.(phase, output);
    live.phaseEnded(failedPhase);
    expect(tty.text()).toContain(lines.slice(end, end + 25).join("\n"));

    // sssf tail: the suite's log event, whose envelope carries failed_tests.
    const replayed = stream(false);
    const replay = replayTrace(createTerminalReporter(replayed.out, "/"));
    const envelope = {
      suite: "test",
      passed: false,
      output_tail: "FAILED 25 tests",
      failed_tests: failedTests,
    };
    replay.event(eventRow("run", { type: "phase_start", name: "test", phaseId: phase.id }), phase);
    replay.event(
      eventRow("run", {
        type: "log",
        name: "test: failed (exit 1)",
        phaseId: phase.id,
        payload: { envelope },
      }),
      phase,
    );
    replay.event(eventRow("run", { type: "phase_end", name: "test", phaseId: phase.id }), failedPhase);
    expect(replayed.text()).toBe(piped.text());
  });
});
