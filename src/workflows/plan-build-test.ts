import { defineWorkflow } from "../api/run-api.js";
import { buildFromPlan, captureRequest, commit, plan, testsVerdict } from "./steps.js";

/** Plan, build from the plan, test with bounded fixes; committed only when the tests pass. */
export const planBuildTestWorkflow = defineWorkflow({
  name: "plan-build-test",
  description: "Plan, implement the plan, run the tests with bounded fixes, commit",
  agents: ["planner", "builder"],
  suites: ["test"],
  phases: ["request", "plan", "build", "test", "fix", "test", "commit"],
  bestOf: "build",
  async run(run, request) {
    await captureRequest(run, request);
    const planned = await plan(run, request);
    const built = await buildFromPlan(run, request, planned, ["test"]);
    const tested = await testsVerdict(run, request);
    if (!tested.ok) return run.finish({ accepted: false, reason: tested.reason });
    await commit(run, "commit", built);
    return run.finish({ accepted: true, reason: tested.reason });
  },
});
