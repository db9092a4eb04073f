import { defineWorkflow } from "../engine/run-api.js";
import { build, captureRequest, commit, plan, verifyLoop } from "./steps.js";

/** Plan, build from the plan, test with bounded fixes; committed only when the tests pass. */
export const planBuildTestWorkflow = defineWorkflow({
  name: "plan-build-test",
  description: "Plan, implement the plan, run the tests with bounded fixes, commit",
  agents: ["planner", "builder"],
  suites: ["test"],
  phases: ["request", "plan", "build", "test", "fix", "test", "commit"],
  async run(run, request) {
    await captureRequest(run, request);
    const planned = await plan(run, request);
    const built = await build(run, {
      name: "build",
      description: "Implement the plan exactly",
      prompt: request,
      previous: planned,
    });
    const verified = await verifyLoop(run, request, ["test"]);
    if (!verified.passed) {
      return run.finish({
        accepted: false,
        reason: `tests still fail after ${verified.fixes.length} fix(es)`,
      });
    }
    await commit(run, "commit", built);
    return run.finish({ accepted: true, reason: verified.last?.summary ?? "tests pass" });
  },
});
