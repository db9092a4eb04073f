import type { EngineerAnswer } from "../api/run-api.js";
import type { SessionTrace } from "../session/session-trace.js";
import type { PhaseRow } from "../trace/events.js";
import type { SessionOwner } from "../trace/session-fence.js";
import type { RunWorkspace } from "../workspace/run-workspace.js";

/** What an engineer phase waits for, as a host that answers it from elsewhere sees it. */
export interface PendingQuestion {
  adwId: string;
  /** The question as the journal keys its step: `p<position>.<phase>.ask#<n>`, the same on every attempt. */
  key: string;
  question: string;
}

/**
 * How a run is hosted beyond one sssf process (a cluster worker, docs/cluster.md): what the host does
 * around the run's workspace and phases. Every hook is optional; a local run has none.
 */
export interface RunHost {
  /**
   * Who takes the run over: a session the trace still marks `running` is closed as `interrupted` with
   * this reason (the host knows its sssf is gone: the engine that placed it retried it elsewhere),
   * wherever it ran, instead of refusing a run of another host.
   */
  takeOver?: {
    reason: string;
    payload: Record<string, unknown>;
    /** The process the session row named before the host claimed it (its leftover processes end). */
    from?: { host: string | null; pid: number | null };
  };
  /**
   * The run's trace writes to the db only while the session row names this process (host and pid):
   * a host that can be taken for dead and wake up again (a cluster worker) passes what to do when
   * another process claimed the session. Its records then go to the session's files only.
   */
  fenced?(holder: SessionOwner | null): void;
  /** The workspace is open and announced, before the first phase: put back what an earlier attempt kept. */
  workspaceOpened?(workspace: RunWorkspace, trace: SessionTrace): Promise<void>;
  /**
   * A live phase completed: keep what it made where another host can continue from it. Called before
   * the phase is journaled, so a host that dies before this resolves has the phase run again.
   */
  phaseCompleted?(phase: PhaseRow): Promise<void>;
  /**
   * A second door for an engineer's answer, raced with `sssf approve` on this host: resolves with the
   * answer given elsewhere, or never (it is abandoned when the signal aborts).
   */
  remoteAnswer?(question: PendingQuestion, signal: AbortSignal): Promise<EngineerAnswer>;
  /** Added to the `waiting for approval` event: how to answer from another machine. */
  answerVia?: Record<string, unknown>;
}
