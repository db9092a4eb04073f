import type { Workflow } from "../api/run-api.js";
import { buildWorkflow } from "./build.js";
import { buildReviewWorkflow } from "./build-review.js";
import { buildTestWorkflow } from "./build-test.js";
import { type DiscoverOptions, findWorkflowIn, type ListedWorkflow, listWorkflowsIn } from "./discover.js";
import { documentWorkflow } from "./document.js";
import { planWorkflow } from "./plan.js";
import { planBuildWorkflow } from "./plan-build.js";
import { planBuildTestWorkflow } from "./plan-build-test.js";
import { planBuildTestQualityWorkflow } from "./plan-build-test-quality.js";
import { promptWorkflow } from "./prompt.js";
import { qualityWorkflow } from "./quality.js";
import { scoutWorkflow } from "./scout.js";
import { sddWorkflow } from "./sdd.js";
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
    sddWorkflow,
  ].map((workflow) => [workflow.name, workflow]),
);

/**
 * The workflow `name` stands for: the repo's `adws/adw_<name>.ts` (or `.mts`, `.js`, `.mjs`) when
 * `options.repoRoot` has one, else the built-in. Underscores and dashes are interchangeable. Only the
 * named file is imported.
 *
 * @throws UsageError for an unknown name; ConfigError for a repo-local file that is not a workflow.
 * @example const workflow = await findWorkflow("build-docs", { repoRoot: process.cwd() });
 */
export function findWorkflow(name: string, options: DiscoverOptions = {}): Promise<Workflow> {
  return findWorkflowIn(builtinWorkflows, name, options);
}

/** Every workflow, built-in and repo-local, as `sssf list` shows them. Never rejects. */
export function listWorkflows(options: DiscoverOptions = {}): Promise<ListedWorkflow[]> {
  return listWorkflowsIn(builtinWorkflows, options);
}

export type { DiscoverOptions, ListedWorkflow } from "./discover.js";
