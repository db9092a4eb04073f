import { defineWorkflow } from "../api/run-api.js";
import { build, captureRequest, commit, testsVerdict } from "./steps.js";

/** Build, then test with bounded fixes (the last fix re-tested); committed only when the tests pass. */
export const buildTestWorkflow = defineWorkflow({
  name: "build-test",
  description: "Implement the request, run the tests, let the builder fix failures, commit",
  agents: ["builder"],
  suites: ["test"],
  phases: ["request", "build", "test", "fix", "test", "commit"],
  bestOf: "build",
  async run(run, request) {
    await captureRequest(run, request);
    const built = await build(run, {
      name: "build",
      description: "Implement the request",
      prompt: request,
      checkSuites: ["test"],
    });
    const tested = await testsVerdict(run, request);
    if (!tested.ok) return run.finish({ accepted: false, reason: tested.reason });
    await commit(run, "commit", built);
    return run.finish({ accepted: true, reason: tested.reason });
  },
});
