/**
 * sssf: the public API for writing workflows (ADWs), output types and gates, and for running them.
 * @module
 */

/** zod, the same copy sssf validates envelopes with: `import { z } from "sssf"` needs no install of its own. */
export { z } from "zod";
export {
  type Decision,
  type DecisionAction,
  type DecisionLog,
  type DecisionPolicy,
  decide,
  recordDecision,
} from "./api/decide.js";
export {
  type AgentPhase,
  type AgentPhaseOptions,
  type BestOfAttempt,
  type BestOfCheckResult,
  type BestOfOptions,
  type CallOptions,
  type CodePhase,
  type CodePhaseOptions,
  defineWorkflow,
  type EngineerAnswer,
  type EngineerPhase,
  type Finished,
  type FinishOptions,
  type PhaseBudget,
  type PhaseOptions,
  type Run,
  type RunSuiteOptions,
  type SuiteBaseline,
  type Workflow,
} from "./api/run-api.js";
export type {
  OpenSendHook,
  SendFinding,
  SendHook,
  SendInfo,
  SendOutcome,
  SendReason,
  SendSettlement,
} from "./api/send-hook.js";
export type { AgentConfig, QualitySuiteConfig, SssfConfig } from "./config/config-types.js";
export { configJsonSchema, DEFAULT_CONFIG_PATH, type LoadConfigOptions } from "./config/load-config.js";
export type { RunOutcome, RunWorkflowOptions } from "./engine/run-workflow.js";
export * from "./envelope/index.js";
export * from "./errors/index.js";
export * from "./gates/index.js";
export { getRuntime, loadConfig, registeredRuntimeIds, registerRuntime, runWorkflow } from "./library.js";
export { BUILTIN_RUNTIME_IDS, builtinRuntimes } from "./runtimes/builtins.js";
export { type LazyRuntime, RuntimeRegistry } from "./runtimes/registry.js";
export type * from "./runtimes/runtime.js";
export type { RunReporter } from "./session/reporter.js";
export {
  builtinWorkflows,
  type DiscoverOptions,
  findWorkflow,
  type ListedWorkflow,
  listWorkflows,
} from "./workflows/index.js";
