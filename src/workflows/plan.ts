import { defineWorkflow } from "../api/run-api.js";
import { captureRequest, commit, plan } from "./steps.js";

/** A plan file written and committed with the planner's own message. */
export const planWorkflow = defineWorkflow({
  name: "plan",
  description: "Write a plan for the request and commit it",
  agents: ["planner"],
  phases: ["request", "plan", "commit"],
  async run(run, request) {
    await captureRequest(run, request);
    const planned = await plan(run, request);
    await commit(run, "commit", planned);
    return run.finish({ accepted: true, reason: planned.summary || "plan written" });
  },
});
