import { defineWorkflow, type Run } from "../api/run-api.js";
import { GenericOutput } from "../envelope/schemas.js";
import { gates } from "../gates/index.js";

/** The roster name `sssf run prompt` hands a request to when `--agent` names none. */
export const GENERAL_AGENT = "general";

/**
 * The user prompt of a request given to an agent that is not a general one: the request as it is,
 * instead of the agent's own task (the planner's "write the implementation plan", say).
 */
export const GENERAL_USER_TEMPLATE = `# Request

{{prompt}}

## How to answer

- Do what the request asks, as it is written, and nothing else.
- Change only the files your write boundary allows: changes outside it are undone and fail the run.
- Notes for later agents of this run go in \`{{context_handoff_dir}}\`.
- List the files you wrote in \`artifacts\` (repo-relative paths).
`;

/** Who answers, with which prompt, and the phase description that says so. */
function chooseAgent(run: Run): { owner: string; userTemplate?: string; description: string } {
  if (run.agentOverride !== undefined) return { owner: run.agentOverride, description: "Answer the request" };
  const names = run.config.agents.map((agent) => agent.name);
  if (names.includes(GENERAL_AGENT)) {
    return {
      owner: GENERAL_AGENT,
      description: `Answer the request (no --agent: the roster's ${GENERAL_AGENT})`,
    };
  }
  const first = names[0] ?? "";
  return {
    owner: first,
    userTemplate: GENERAL_USER_TEMPLATE,
    description: `Answer the request with a general prompt, not ${first}'s own task (no --agent and no "${GENERAL_AGENT}" agent: the roster's first)`,
  };
}

/**
 * One agent, one prompt, a `GenericOutput` envelope whose claimed artifacts must exist. The agent is
 * `--agent` (with its own prompts), else the roster's `general` agent, else the roster's first with a
 * general user prompt carrying the request as it is: never another agent's task.
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
    const { owner, userTemplate, description } = chooseAgent(run);
    const envelope = await run.agent("prompt", { owner, description }, (phase) =>
      phase.call({
        outputType: GenericOutput,
        prompt: request,
        previous: null,
        gates: [gates.artifactsExist],
        ...(userTemplate === undefined ? {} : { userTemplate }),
      }),
    );
    return run.finish({ accepted: true, reason: envelope.summary || `${owner} succeeded` });
  },
});
