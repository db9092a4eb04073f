/**
 * sssf: the public API for writing workflows (ADWs), output types and gates, and for running them.
 * @module
 */

export { BUILTIN_RUNTIME_IDS, configJsonSchema, DEFAULT_CONFIG_PATH, loadConfig } from "./engine/config.js";
export type { AgentConfig, QualitySuiteConfig, SssfConfig } from "./engine/config-types.js";
export {
  type Decision,
  type DecisionAction,
  type DecisionLog,
  type DecisionPolicy,
  decide,
  recordDecision,
} from "./engine/decide.js";
export type { RunReporter } from "./engine/reporter.js";
export {
  type AgentPhase,
  type AgentPhaseOptions,
  type CallOptions,
  type CodePhase,
  type CodePhaseOptions,
  defineWorkflow,
  type EngineerAnswer,
  type EngineerPhase,
  type Finished,
  type FinishOptions,
  type PhaseOptions,
  type Run,
  type Workflow,
} from "./engine/run-api.js";
export { type RunOutcome, type RunWorkflowOptions, runWorkflow } from "./engine/run-workflow.js";
export * from "./envelope/index.js";
export * from "./errors/index.js";
export * from "./gates/index.js";
export { getRuntime, registeredRuntimeIds, registerRuntime } from "./runtimes/index.js";
export type * from "./runtimes/runtime.js";
export {
  builtinWorkflows,
  type DiscoverOptions,
  findWorkflow,
  type ListedWorkflow,
  listWorkflows,
} from "./workflows/index.js";
