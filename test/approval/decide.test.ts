import { describe, expect, it } from "vitest";
import { type Decision, decide, recordDecision } from "../../src/api/decide.js";
import { MarkdownResult, type Risk } from "../../src/envelope/markdown-result-type.js";

type Status = "success" | "warning" | "failure";

function report(resultStatus: Status, risks: Risk[] = [], summary = "Did the thing.") {
  return MarkdownResult.schema.parse({
    status: resultStatus === "failure" ? "fail" : "success",
    summary,
    artifacts: [],
    phase: "Verification Report",
    change: "add-dark-mode",
    result_status: resultStatus,
    warning: resultStatus === "warning",
    next_recommended: "Archive the change (sdd-archive).",
    risks,
  });
}

const critical = (text: string): Risk => ({ severity: "CRITICAL", text });
const warning = (text: string): Risk => ({ severity: "WARNING", text });
const suggestion = (text: string): Risk => ({ severity: "SUGGESTION", text });

describe("decide", () => {
  it("proceeds on a clean success, with nothing to surface", () => {
    expect(decide(report("success"))).toEqual({ action: "proceed", reason: "success", risks: [] });
  });

  it("never surfaces SUGGESTIONs", () => {
    expect(decide(report("success", [suggestion("rename the hook")]))).toEqual({
      action: "proceed",
      reason: "success",
      risks: [],
    });
  });

  it("proceeds on a success that lists WARNINGs, and returns them", () => {
    const decision = decide(report("success", [warning("coverage is 67%")]));
    expect(decision).toEqual({
      action: "proceed",
      reason: "success with 1 WARNING risk: coverage is 67%",
      risks: [warning("coverage is 67%")],
    });
  });

  it("proceeds on a warning and returns its risks for the trace and the banner", () => {
    const decision = decide(
      report("warning", [suggestion("add a story"), warning("slow test"), warning("flaky CI")]),
    );
    expect(decision).toEqual({
      action: "proceed",
      reason: "warning: 2 WARNING risks: slow test (and 1 more)",
      risks: [warning("slow test"), warning("flaky CI")],
    });
  });

  it("proceeds on a warning without listed risks, saying the summary", () => {
    expect(decide(report("warning", [], "Spec written; one scenario is vague."))).toEqual({
      action: "proceed",
      reason: "warning: Spec written; one scenario is vague.",
      risks: [],
    });
  });

  it("asks the engineer about a CRITICAL risk by default, CRITICAL first in the risks", () => {
    const risks = [warning("coverage 67%"), critical("toggle throws"), critical("wrong default theme")];
    const decision = decide(report("warning", risks));
    expect(decision).toEqual({
      action: "ask",
      reason: "2 CRITICAL risks: toggle throws (and 1 more)",
      risks: [critical("toggle throws"), critical("wrong default theme"), warning("coverage 67%")],
    });
    expect(decide(report("success", [critical("toggle throws")]), { onCritical: "ask" }).action).toBe("ask");
  });

  it("stops on a CRITICAL risk when the policy says stop", () => {
    expect(decide(report("success", [critical("toggle throws")]), { onCritical: "stop" })).toEqual({
      action: "stop",
      reason: "1 CRITICAL risk: toggle throws",
      risks: [critical("toggle throws")],
    });
  });

  it("stops on a failure whatever the policy, with its risks", () => {
    const failed = report("failure", [warning("coverage"), critical("tests fail")], "2 tests fail.");
    const expected: Decision = {
      action: "stop",
      reason: "failure: 2 tests fail.",
      risks: [critical("tests fail"), warning("coverage")],
    };
    expect(decide(failed)).toEqual(expected);
    expect(decide(failed, { onCritical: "ask" })).toEqual(expected);
    expect(decide(report("failure", [], "Blocked on design."))).toEqual({
      action: "stop",
      reason: "failure: Blocked on design.",
      risks: [],
    });
  });

  it("treats status fail as a failure even if result_status disagrees", () => {
    const odd = { ...report("success"), status: "fail" as const };
    expect(decide(odd).action).toBe("stop");
  });

  it("is pure: the report is not changed", () => {
    const input = report("warning", [warning("b"), critical("a"), suggestion("c")]);
    const copy = structuredClone(input);
    decide(input);
    decide(input, { onCritical: "stop" });
    expect(input).toEqual(copy);
  });
});

describe("recordDecision", () => {
  it("logs the decision on the phase and returns it unchanged", () => {
    const logged: { message: string; details: Record<string, unknown> | undefined }[] = [];
    const phase = {
      log: (message: string, details?: Record<string, unknown>) => logged.push({ message, details }),
    };
    const decision = decide(report("success", [critical("toggle throws")]));
    expect(recordDecision(phase, decision)).toBe(decision);
    expect(logged).toEqual([
      {
        message: "decision: ask (1 CRITICAL risk: toggle throws)",
        details: {
          decision: "ask",
          reason: "1 CRITICAL risk: toggle throws",
          risks: [critical("toggle throws")],
        },
      },
    ]);
  });
});
