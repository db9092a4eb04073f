import { defineWorkflow } from "../api/run-api.js";
import { captureRequest, commit, document } from "./steps.js";

/** The documenter writes up the request (or the session's last change on a rejoin); committed. */
export const documentWorkflow = defineWorkflow({
  name: "document",
  description: "Write or update documentation and commit the write-up",
  agents: ["documenter"],
  phases: ["request", "document", "commit"],
  async run(run, request) {
    await captureRequest(run, request);
    const written = await document(run, request);
    await commit(run, "commit", written);
    return run.finish({ accepted: true, reason: written.summary || `wrote ${written.document_path}` });
  },
});
