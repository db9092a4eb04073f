/** What `runWorkflow` takes (the workflow, the request, the config and the command line's choices) and what it gives back. */

import type { DurableRun } from "../api/durable-steps.js";
import type { Workflow } from "../api/run-api.js";
import type { SendHook } from "../api/send-hook.js";
import type { SssfConfig } from "../config/config-types.js";
import type { RuntimeRegistry } from "../runtimes/registry.js";
import type { Runtime } from "../runtimes/runtime.js";
import type { RunReporter } from "../session/reporter.js";
import type { PhaseRow, SessionRow } from "../trace/events.js";
import type { RunWorkspace } from "../workspace/run-workspace.js";
import type { BranchLook, EmptyBranchOutcome } from "../workspace/run-workspace-finish.js";
import type { FastForwardResult } from "../workspace/worktree-merge.js";
import type { RunHost } from "./run-host.js";

export interface RunWorkflowOptions {
  workflow: Workflow;
  request: string;
  config: SssfConfig;
  /** Join (or name) a session; a fresh 8-hex id is minted otherwise. */
  adwId?: string | undefined;
  /** `--agent`: the agent for workflows that take one (prompt). */
  agent?: string | undefined;
  /** `--best-of N`: attempts of the workflow's `bestOf` phase (docs/reliability.md, "Best-of-N"). */
  bestOf?: number | undefined;
  reporter?: RunReporter;
  /** Aborting interrupts the run: agents' process groups are killed and the session ends `fail`. */
  signal?: AbortSignal;
  /** The runtimes agents may use; the composition root (CLI, library entry) passes the built-ins. */
  registry: RuntimeRegistry;
  /** Runtimes registered over `registry` for this run only (in-process agents for tests and benchmarks). */
  runtimes?: Runtime[];
  /** `--in-place`: work in the checkout itself instead of a worktree of its own (default false). */
  inPlace?: boolean;
  /** `--base`: the commit-ish a new run's branch starts from (default HEAD). */
  base?: string | undefined;
  /** `--merge`: fast-forward the base branch to the run's branch once the run is accepted. */
  merge?: boolean;
  /** `--carry-dirty`: carry the checkout's uncommitted changes into the new worktree (docs/worktrees.md). */
  carryDirty?: boolean;
  /** `--yes`: engineer phases' questions (`phase.ask`) are approved at once instead of waiting. */
  yes?: boolean;
  /** Watchers opened around every agent send of the run, after the write boundary (docs/send-hooks.md). */
  sendHooks?: readonly SendHook[];
  /**
   * `sssf resume`: continue the session `adwId` where it stopped. Phases an earlier attempt completed
   * are answered from its journal until the first that did not complete or differs (docs/resume.md).
   */
  resume?: boolean;
  /**
   * `--fake-script`: the absolute path of the fake model's script the run plays offline. Journaled with
   * the attempt's start, so `sssf resume` refuses to go online for a run begun offline (docs/resume.md).
   */
  fakeScript?: string | undefined;
  /** What hosts the run beyond this process: a cluster worker's hooks (docs/cluster.md). */
  host?: RunHost;
  /**
   * Wraps the attempt's durable executor before the first phase: `sssf replay` answers steps from
   * another session's record through it (docs/replay.md). Absent: the journal as it is.
   */
  durable?: (journal: DurableRun) => DurableRun;
}

export interface RunOutcome {
  adwId: string;
  accepted: boolean;
  reason: string;
  /** 0 accepted (and merged, with `merge`), 1 failed, not accepted, or its merge refused. */
  exitCode: 0 | 1;
  sessionDir: string;
  session: SessionRow;
  phases: PhaseRow[];
  /** Where the run worked: its worktree and branch, or the checkout. */
  workspace: RunWorkspace;
  /** What `merge` did; null without it or when the run was not accepted. */
  merge: FastForwardResult | null;
  /** What became of a worktree run's branch at its end: `removed` when it held no commit of its own. */
  branch: EmptyBranchOutcome;
  /** The branch's commits beyond its base as the end found them; null in place or when git could not tell. */
  commits: BranchLook;
}
