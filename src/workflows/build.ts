import { defineWorkflow } from "../api/run-api.js";
import { build, captureRequest, commit } from "./steps.js";

/** One builder pass, gated on its claimed changes, committed with its message. */
export const buildWorkflow = defineWorkflow({
  name: "build",
  description: "Implement the request and commit the change",
  agents: ["builder"],
  phases: ["request", "build", "commit"],
  bestOf: "build",
  async run(run, request) {
    await captureRequest(run, request);
    const built = await build(run, {
      name: "build",
      description: "Implement the request",
      prompt: request,
    });
    await commit(run, "commit", built);
    return run.finish({ accepted: true, reason: built.summary || "built" });
  },
});
