import { defineWorkflow } from "../api/run-api.js";
import { captureRequest, commit, configuredSuites, verifyLoop } from "./steps.js";

/** Every configured suite; the builder fixes failures (each fix re-checked) and the fixes are committed. */
export const qualityWorkflow = defineWorkflow({
  name: "quality",
  description: "Run every quality suite and let the builder fix what fails",
  agents: ["builder"],
  suites: ["*"],
  phases: ["request", "<suite>…", "fix", "<suite>…", "commit"],
  async run(run, request) {
    await captureRequest(run, request);
    const suites = configuredSuites(run);
    // Nothing changed yet: the suites run at the base commit already, so a baseline would say nothing.
    const verified = await verifyLoop(run, request, suites, { baseline: false });
    const firstFix = verified.fixes[0];
    if (!verified.passed) {
      return run.finish({ accepted: false, reason: verified.last?.summary ?? "a suite still fails" });
    }
    // From the first fix: its message is the subject and every later fix's is a line of the body.
    if (firstFix) await commit(run, "commit", firstFix);
    return run.finish({
      accepted: true,
      reason: `${suites.join(", ")} pass${verified.fixes.length ? ` after ${verified.fixes.length} fix(es)` : ""}`,
    });
  },
});
