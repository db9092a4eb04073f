import { defineWorkflow } from "../api/run-api.js";
import {
  buildFromPlan,
  captureRequest,
  commit,
  configuredSuites,
  failedBeforeReason,
  passedReason,
  plan,
  testsVerdict,
  verifyLoop,
} from "./steps.js";

/** plan-build-test, then every configured suite with bounded fixes (each fix re-runs them all). */
export const planBuildTestQualityWorkflow = defineWorkflow({
  name: "plan-build-test-quality",
  description: "Plan, implement, test, then run every quality suite with bounded fixes, commit",
  agents: ["planner", "builder"],
  suites: ["test", "*"],
  phases: ["request", "plan", "build", "test", "fix", "<suite>…", "fix", "commit"],
  bestOf: "build",
  async run(run, request) {
    await captureRequest(run, request);
    const planned = await plan(run, request);
    const built = await buildFromPlan(run, request, planned, configuredSuites(run));
    const tested = await testsVerdict(run, request);
    if (!tested.ok) return run.finish({ accepted: false, reason: tested.reason });
    const checked = await verifyLoop(run, request, configuredSuites(run));
    if (!checked.passed) {
      const reason = failedBeforeReason(checked) ?? checked.last?.summary ?? "a quality suite still fails";
      return run.finish({ accepted: false, reason });
    }
    await commit(run, "commit", built);
    const suitesPass = `${configuredSuites(run).join(", ")} pass`;
    const reasons = [tested.reason, passedReason(checked, "")].filter((r) => r !== "" && r !== "tests pass");
    return run.finish({
      accepted: true,
      reason: reasons.length ? `${suitesPass} (${reasons.join("; ")})` : suitesPass,
    });
  },
});
