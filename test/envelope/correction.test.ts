import { describe, expect, it } from "vitest";
import { gateCorrectionMessage, jsonCorrectionMessage } from "../../src/envelope/correction.js";
import { parseEnvelope } from "../../src/envelope/parse-envelope.js";
import { BuildOutput, ReviewOutput } from "../../src/envelope/schemas.js";
import { GateReport } from "../../src/gates/gate.js";

describe("jsonCorrectionMessage", () => {
  it("names every problem by path and shows the example", () => {
    const reply = '{"approved": "yes", "findings": [{"requirement": "r", "met": "no"}]}';
    const result = parseEnvelope(reply, ReviewOutput);
    if (result.ok) throw new Error("expected the reply to be invalid");
    const message = jsonCorrectionMessage(ReviewOutput, result.problems);
    expect(result.problems.map((problem) => problem.path)).toEqual([
      "status",
      "approved",
      "findings[0].met",
      "findings[0].evidence",
    ]);
    for (const problem of result.problems)
      expect(message).toContain(`- \`${problem.path}\`: ${problem.message}`);
    expect(message).toContain("Reply with ONLY the corrected JSON object matching `ReviewOutput`");
    const fence = /```json\n([\s\S]*?)\n```/.exec(message);
    expect(JSON.parse(fence?.[1] ?? "")).toEqual(ReviewOutput.example);
  });

  it("renders the exact text for a missing field", () => {
    const message = jsonCorrectionMessage(BuildOutput, [
      { path: "status", message: 'required field is missing (expected "success" | "fail")' },
    ]);
    expect(message).toBe(
      [
        "Your reply could not be accepted: it must contain a JSON object matching `BuildOutput`.",
        "",
        "Problems:",
        '- `status`: required field is missing (expected "success" | "fail")',
        "",
        "Reply with ONLY the corrected JSON object matching `BuildOutput`, no prose before or after. Expected shape:",
        "",
        "```json",
        JSON.stringify(BuildOutput.example, null, 2),
        "```",
      ].join("\n"),
    );
  });

  it("words a whole-reply problem without a path", () => {
    const message = jsonCorrectionMessage(BuildOutput, [
      { path: "", message: "no JSON object was found in the reply" },
    ]);
    expect(message).toContain("\n- no JSON object was found in the reply\n");
  });
});

describe("gateCorrectionMessage", () => {
  it("lists each failed gate's violations and leaves passing gates out", () => {
    const diff = new GateReport("diffMatchesClaims")
      .check("src/server.ts", true)
      .check("src/missing.ts", false, "claimed in changed_files but not changed")
      .check("src/extra.ts", false, "changed but not claimed");
    const tests = new GateReport("testsPass").check("test", false);
    const artifacts = new GateReport("artifactsExist").check("plan.md", true);
    const message = gateCorrectionMessage(BuildOutput, [diff, artifacts, tests]);
    expect(message).toBe(
      [
        "Your JSON envelope was valid, but checking its claims against the repository found problems.",
        "",
        "Gate `diffMatchesClaims` failed:",
        "- src/missing.ts: claimed in changed_files but not changed",
        "- src/extra.ts: changed but not claimed",
        "",
        "Gate `testsPass` failed:",
        "- test",
        "",
        "Fix the work, or correct the claims that are wrong, then reply again with the complete JSON envelope " +
          "matching `BuildOutput`: ONLY the JSON object, no prose before or after.",
      ].join("\n"),
    );
    expect(message).not.toContain("artifactsExist");
    expect(message).not.toContain("src/server.ts");
  });
});
