import { defineWorkflow } from "../api/run-api.js";
import { GenericOutput } from "../envelope/schemas.js";
import { gates } from "../gates/index.js";

/**
 * One agent, one prompt, a `GenericOutput` envelope whose claimed artifacts must exist. The agent is
 * `--agent` or the roster's first.
 */
export const promptWorkflow = defineWorkflow({
  name: "prompt",
  description: "One agent answers one prompt with a GenericOutput envelope",
  agents: [],
  phases: ["request", "prompt"],
  async run(run, request) {
    await run.engineer("request", { description: "Capture the engineer's request" }, (phase) =>
      phase.log("request captured", { request }),
    );
    const owner = run.agentOverride ?? run.config.agents[0]?.name ?? "";
    const envelope = await run.agent("prompt", { owner, description: "Answer the request" }, (phase) =>
      phase.call({
        outputType: GenericOutput,
        prompt: request,
        previous: null,
        gates: [gates.artifactsExist],
      }),
    );
    return run.finish({ accepted: true, reason: envelope.summary || `${owner} succeeded` });
  },
});
