import type { Workflow } from "../engine/run-api.js";
import { UsageError } from "../errors/usage-error.js";
import { promptWorkflow } from "./prompt.js";

/** The workflows shipped in the package, by name. */
export const builtinWorkflows: ReadonlyMap<string, Workflow> = new Map([
  [promptWorkflow.name, promptWorkflow],
]);

export function findWorkflow(name: string): Workflow {
  const workflow = builtinWorkflows.get(name);
  if (!workflow) {
    throw new UsageError(
      `unknown workflow "${name}" (available: ${[...builtinWorkflows.keys()].join(", ")})`,
      "<workflow>",
    );
  }
  return workflow;
}
