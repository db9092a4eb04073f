import { defineWorkflow } from "../api/run-api.js";
import { captureRequest, scout } from "./steps.js";

/** Read-only exploration: the scout's findings, with the notes it wrote checked to exist. */
export const scoutWorkflow = defineWorkflow({
  name: "scout",
  description: "Explore the code a request touches and report findings (read-only)",
  agents: ["scout"],
  phases: ["request", "scout"],
  async run(run, request) {
    await captureRequest(run, request);
    const found = await scout(run, request);
    return run.finish({ accepted: true, reason: found.summary || `${found.findings.length} finding(s)` });
  },
});
