import { defineWorkflow } from "../api/run-api.js";
import { buildFromPlan, captureRequest, commit, plan } from "./steps.js";

/** Plan, then build from the plan; one commit with the builder's message (plan file included). */
export const planBuildWorkflow = defineWorkflow({
  name: "plan-build",
  description: "Plan the request, implement the plan, commit",
  agents: ["planner", "builder"],
  phases: ["request", "plan", "build", "commit"],
  bestOf: "build",
  async run(run, request) {
    await captureRequest(run, request);
    const planned = await plan(run, request);
    const built = await buildFromPlan(run, request, planned);
    await commit(run, "commit", built);
    return run.finish({ accepted: true, reason: built.summary || "built" });
  },
});
