import {
  discardNewWorkspace,
  openWorkspace,
  type RunWorkspace,
  type WorkspacePlan,
} from "./run-workspace.js";

/**
 * A run's workspace opened ahead: a new session's `git worktree add` starts as soon as its plan is
 * known, so git works while sssf opens the trace. `open` then takes it, when the plan did not change;
 * otherwise (another process started the session meanwhile) it removes it and opens the plan it is
 * given. A run that ends before `open` calls `abandon`, which removes what was added ahead.
 */
export class WorkspaceOpening {
  readonly #planned: WorkspacePlan;
  readonly #ahead: Promise<RunWorkspace> | null;
  #settled: boolean;

  /** Starts opening `plan` now when `ahead` is true and the plan creates a worktree. */
  constructor(plan: WorkspacePlan, ahead: boolean) {
    this.#planned = plan;
    this.#ahead = ahead && plan.action === "create" ? openWorkspace(plan) : null;
    this.#ahead?.catch(() => undefined); // awaited by open or abandon
    this.#settled = this.#ahead === null;
  }

  /** The workspace of `plan`: the one opened ahead when `plan` is the plan it was opened for. Rejects as `openWorkspace` does. */
  async open(plan: WorkspacePlan): Promise<RunWorkspace> {
    const ahead = this.#ahead;
    this.#settled = true;
    if (ahead !== null && plan === this.#planned) return ahead;
    if (ahead !== null) await discardNewWorkspace(this.#planned, ahead);
    return openWorkspace(plan);
  }

  /** Removes the worktree and branch opened ahead, unless `open` already settled them. Never rejects. */
  async abandon(): Promise<void> {
    if (this.#settled || this.#ahead === null) return;
    this.#settled = true;
    await discardNewWorkspace(this.#planned, this.#ahead);
  }
}
