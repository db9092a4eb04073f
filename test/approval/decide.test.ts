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

describe("decide reads Next Recommended", () => {
  const next = (text: string, status: Status = "success", risks: Risk[] = []) => ({
    ...report(status, risks),
    next_recommended: text,
    notes_for_next_agent: text,
  });
  const blocked = "Blocked: resolve the open questions in design.md before sdd-tasks.";

  it("asks the engineer on a blocked next step by default, traced with its cue", () => {
    expect(decide(next(blocked))).toEqual({
      action: "ask",
      reason: `Next Recommended says it is blocked: ${blocked}`,
      risks: [],
      nextStep: { kind: "blocked", cue: "Blocked" },
    });
  });

  it("asks on a next step that says to stop or wait", () => {
    expect(decide(next("Wait for the product owner's answer on the storage backend."))).toEqual({
      action: "ask",
      reason: "Next Recommended says to stop: Wait for the product owner's answer on the storage backend.",
      risks: [],
      nextStep: { kind: "stop", cue: "Wait for" },
    });
    expect(decide(next("Halt the run until the API keys arrive.", "warning", [warning("keys")])).action).toBe(
      "ask",
    );
  });

  it.each([
    "Blocked: resolve open questions in design before proceeding",
    "Implementation is blocked by the missing API key.",
    "Cannot proceed until the user picks a storage backend.",
    "Stop here: the request is out of scope.",
    "Halt.",
    "Wait for the API review.",
  ])("onBlocked stop stops on %j", (text) => {
    expect(decide(next(text), { onBlocked: "stop" }).action).toBe("stop");
    expect(decide(next(text), { onBlocked: "ask" }).action).toBe("ask");
  });

  it("onBlocked follows onCritical unless given", () => {
    expect(decide(next(blocked), { onCritical: "stop" }).action).toBe("stop");
    expect(decide(next(blocked), { onCritical: "stop", onBlocked: "ask" }).action).toBe("ask");
    expect(decide(next(blocked), { onCritical: "ask", onBlocked: "stop" }).action).toBe("stop");
  });

  it("a CRITICAL risk and a block: the reason names both, stop wins", () => {
    const both = next(blocked, "warning", [critical("toggle throws")]);
    expect(decide(both)).toEqual({
      action: "ask",
      reason: `1 CRITICAL risk: toggle throws; Next Recommended says it is blocked: ${blocked}`,
      risks: [critical("toggle throws")],
      nextStep: { kind: "blocked", cue: "Blocked" },
    });
    expect(decide(both, { onCritical: "ask", onBlocked: "stop" }).action).toBe("stop");
    expect(decide(both, { onCritical: "stop", onBlocked: "ask" }).action).toBe("stop");
  });

  it.each([
    "None needed.",
    "none",
    "Ready for specs (sdd-spec) or design (sdd-design).",
    "Implement the stop button (sdd-apply).",
    "Stop the dev server, then run sdd-verify.",
    "No blockers; ready for sdd-apply.",
    "Run sdd-verify; stop if the tests still fail.",
  ])("proceeds on %j", (text) => {
    expect(decide(next(text), { onCritical: "stop", onBlocked: "stop" })).toEqual({
      action: "proceed",
      reason: "success",
      risks: [],
    });
  });

  it("a failure still stops with its summary, whatever its Next Recommended", () => {
    expect(decide(next(blocked, "failure", [critical("tests fail")]), { onBlocked: "ask" })).toEqual({
      action: "stop",
      reason: "failure: Did the thing.",
      risks: [critical("tests fail")],
    });
  });

  it("cuts a long next step in the reason", () => {
    const long = `Blocked: ${"the design leaves the storage backend open ".repeat(6)}`.trim();
    const { reason } = decide(next(long));
    expect(reason.startsWith("Next Recommended says it is blocked: Blocked: the design")).toBe(true);
    expect(reason.endsWith("...")).toBe(true);
    expect(reason.length).toBe("Next Recommended says it is blocked: ".length + 160);
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

  it("adds next_step to the payload when a blocked Next Recommended took part", () => {
    const logged: { message: string; details: Record<string, unknown> | undefined }[] = [];
    const phase = {
      log: (message: string, details?: Record<string, unknown>) => logged.push({ message, details }),
    };
    const text = "Wait for the API review.";
    recordDecision(
      phase,
      decide({ ...report("success"), next_recommended: text, notes_for_next_agent: text }),
    );
    expect(logged).toEqual([
      {
        message: "decision: ask (Next Recommended says to stop: Wait for the API review.)",
        details: {
          decision: "ask",
          reason: "Next Recommended says to stop: Wait for the API review.",
          risks: [],
          next_step: { kind: "stop", cue: "Wait for" },
        },
      },
    ]);
  });
});
