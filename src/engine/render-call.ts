import { readFileSync } from "node:fs";
import type { CallOptions } from "../api/run-api.js";
import type { OutputType } from "../envelope/output-type.js";
import type { CallContext } from "./call-context.js";
import type { CallContract } from "./call-contract.js";
import { renderPrompt } from "./prompts.js";

/** The system and user prompts of a call's first send. */
export interface RenderedCall {
  system: string;
  user: string;
}

/**
 * Renders `system.md` and `user.md` in one pass (a value that contains `{{…}}` is never expanded
 * again). The output contract always reaches the agent: when `user.md` carries neither a `## Report`
 * section nor `{{output_schema}}`, the call's `## Report` is appended.
 */
export function renderCall<T extends OutputType>(
  { run, agent }: CallContext,
  options: CallOptions<T>,
  contract: CallContract<T>,
  previous: object | null,
): RenderedCall {
  const values = {
    prompt: options.prompt,
    previous_envelope: previous === null ? "(none)" : JSON.stringify(previous, null, 2),
    context_handoff_dir: run.contextHandoffDir,
    adw_id: run.adwId,
    output_schema: contract.outputSchema,
  };
  const systemTemplate = readFileSync(agent.config.systemPromptPath, "utf8");
  const userTemplate = readFileSync(agent.config.userPromptPath, "utf8");
  let user = renderPrompt(userTemplate, values);
  if (!/^##\s+Report\b/m.test(userTemplate) && !userTemplate.includes("{{output_schema}}")) {
    user = `${user.trimEnd()}\n\n${contract.reportSection}\n`;
  }
  return { system: renderPrompt(systemTemplate, values), user };
}
