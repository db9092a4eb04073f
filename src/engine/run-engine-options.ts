/** What a run's engine is made with: the run, its session, its trace, where it works and journals. */
import type { DurableRun } from "../api/durable-steps.js";
import type { SendHook } from "../api/send-hook.js";
import type { AgentConfig, SssfConfig } from "../config/config-types.js";
import type { Runtime } from "../runtimes/runtime.js";
import type { AgentSessions } from "../session/agent-session.js";
import type { RecordFiles } from "../session/record-files.js";
import type { RunReporter } from "../session/reporter.js";
import type { SessionDirs } from "../session/session-dirs.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { RunCheckpoints } from "./phase/phase-checkpoints.js";
import type { RunChanges } from "./run-changes.js";
import type { RunHost } from "./run-host.js";

export interface RunEngineOptions {
  config: SssfConfig;
  workflow: string;
  request: string;
  adwId: string;
  dirs: SessionDirs;
  trace: SessionTrace;
  sessions: AgentSessions;
  reporter: RunReporter;
  signal: AbortSignal;
  agentOverride: string | undefined;
  /** `--best-of N`, for the workflow's `bestOf` phase. */
  bestOf?: number | undefined;
  resolveRuntime: (agent: AgentConfig) => Runtime;
  /** Phase numbers continue after this one (joins). */
  lastPhaseNumber: number;
  /** Re-hydrated on joins: the last accepted envelope of the session. */
  lastEnvelope: object | null;
  /** The operator's checkout (equal to `config.repoRoot` for an in-place run). */
  checkoutRoot: string;
  /** The run's own changes since its start or its last commit. */
  changes: RunChanges;
  /** Where checkpoints are taken before agent and code phases; null in place (docs/resume.md). */
  checkpoints: RunCheckpoints | null;
  /** `--yes`: every `ask` of an engineer phase is approved at once (default false). */
  yes?: boolean;
  /** Watchers opened around every agent send of the run, after the write boundary. */
  sendHooks?: readonly SendHook[];
  /** Where phases are journaled and, on a resume, answered from (docs/resume.md). */
  durable: DurableRun;
  /** What hosts the run beyond this process (a cluster worker); none locally. */
  host?: RunHost;
  /** Where the prompts as sent and the accepted envelopes are written, off the main thread. */
  files: RecordFiles;
}
