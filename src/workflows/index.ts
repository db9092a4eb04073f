import type { Workflow } from "../engine/run-api.js";
import { UsageError } from "../errors/usage-error.js";
import { buildWorkflow } from "./build.js";
import { buildReviewWorkflow } from "./build-review.js";
import { buildTestWorkflow } from "./build-test.js";
import { documentWorkflow } from "./document.js";
import { planWorkflow } from "./plan.js";
import { planBuildWorkflow } from "./plan-build.js";
import { planBuildTestWorkflow } from "./plan-build-test.js";
import { planBuildTestQualityWorkflow } from "./plan-build-test-quality.js";
import { promptWorkflow } from "./prompt.js";
import { qualityWorkflow } from "./quality.js";
import { scoutWorkflow } from "./scout.js";
import { simpleSdlcWorkflow } from "./simple-sdlc.js";

/** The workflows shipped in the package, by name, in the order `sssf list` shows them. */
export const builtinWorkflows: ReadonlyMap<string, Workflow> = new Map(
  [
    promptWorkflow,
    scoutWorkflow,
    planWorkflow,
    buildWorkflow,
    qualityWorkflow,
    planBuildWorkflow,
    buildTestWorkflow,
    buildReviewWorkflow,
    planBuildTestWorkflow,
    planBuildTestQualityWorkflow,
    documentWorkflow,
    simpleSdlcWorkflow,
  ].map((workflow) => [workflow.name, workflow]),
);

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
