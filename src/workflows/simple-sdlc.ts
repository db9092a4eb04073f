import { defineWorkflow } from "../api/run-api.js";
import { buildFromPlan, captureRequest, commit, document, plan, reviewLoop, testsVerdict } from "./steps.js";

/**
 * The whole loop with three commits, each carrying its own agent's message: the plan file (planner),
 * the code after tests and review (builder), the write-up (documenter).
 */
export const simpleSdlcWorkflow = defineWorkflow({
  name: "simple-sdlc",
  description: "Plan, build, test with fixes, review with revisions, document; three commits",
  agents: ["planner", "builder", "reviewer", "documenter"],
  suites: ["test"],
  bestOf: "build",
  phases: [
    "request",
    "plan",
    "commit-plan",
    "build",
    "test",
    "fix",
    "changes",
    "review",
    "revise",
    "commit-code",
    "document",
    "commit-docs",
  ],
  async run(run, request) {
    await captureRequest(run, request);
    const planned = await plan(run, request);
    await commit(run, "commit-plan", planned);
    const built = await buildFromPlan(run, request, planned, ["test"]);
    const tested = await testsVerdict(run, request);
    if (!tested.ok) return run.finish({ accepted: false, reason: tested.reason });
    const reviewed = await reviewLoop(run, request, ["test"]);
    if (!reviewed.approved) {
      const why = reviewed.suitesPassed ? reviewed.review.blocking.join("; ") : "a revision broke the tests";
      return run.finish({ accepted: false, reason: `not approved: ${why}` });
    }
    await commit(run, "commit-code", built);
    const written = await document(run, request, reviewed.changes);
    await commit(run, "commit-docs", written);
    return run.finish({ accepted: true, reason: `approved and documented in ${written.document_path}` });
  },
});
