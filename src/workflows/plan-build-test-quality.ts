import { defineWorkflow } from "../api/run-api.js";
import {
  buildFromPlan,
  captureRequest,
  commit,
  configuredSuites,
  failedBeforeReason,
  plan,
  testsFailReason,
  verifyLoop,
} from "./steps.js";

/** plan-build-test, then every configured suite with bounded fixes (each fix re-runs them all). */
export const planBuildTestQualityWorkflow = defineWorkflow({
  name: "plan-build-test-quality",
  description: "Plan, implement, test, then run every quality suite with bounded fixes, commit",
  agents: ["planner", "builder"],
  suites: ["test", "*"],
  phases: ["request", "plan", "build", "test", "fix", "<suite>…", "fix", "commit"],
  async run(run, request) {
    await captureRequest(run, request);
    const planned = await plan(run, request);
    const built = await buildFromPlan(run, request, planned);
    const failing = await testsFailReason(run, request);
    if (failing) return run.finish({ accepted: false, reason: failing });
    const checked = await verifyLoop(run, request, configuredSuites(run));
    if (!checked.passed) {
      const reason = failedBeforeReason(checked) ?? checked.last?.summary ?? "a quality suite still fails";
      return run.finish({ accepted: false, reason });
    }
    await commit(run, "commit", built);
    return run.finish({ accepted: true, reason: `${configuredSuites(run).join(", ")} pass` });
  },
});
