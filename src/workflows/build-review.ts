import { defineWorkflow } from "../api/run-api.js";
import { build, captureRequest, commit, reviewLoop } from "./steps.js";

/** Build, then review with bounded revisions; committed only when the reviewer approves. */
export const buildReviewWorkflow = defineWorkflow({
  name: "build-review",
  description: "Implement the request, have it reviewed, revise until approved, commit",
  agents: ["builder", "reviewer"],
  phases: ["request", "build", "changes", "review", "revise", "changes", "review", "commit"],
  bestOf: "build",
  async run(run, request) {
    await captureRequest(run, request);
    const built = await build(run, { name: "build", description: "Implement the request", prompt: request });
    const reviewed = await reviewLoop(run, request, []);
    if (!reviewed.approved) {
      return run.finish({ accepted: false, reason: `not approved: ${reviewed.review.blocking.join("; ")}` });
    }
    await commit(run, "commit", built);
    return run.finish({ accepted: true, reason: reviewed.review.summary || "approved" });
  },
});
