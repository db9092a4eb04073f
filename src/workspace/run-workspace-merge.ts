import type { Run } from "../api/run-api.js";
import { SssfError } from "../errors/sssf-error.js";
import type { RunWorkspace, WorkspaceVoice } from "./run-workspace.js";
import { type FastForwardResult, fastForward } from "./worktree-merge.js";

/**
 * `--merge` after an accepted run: a `code` phase named `merge` (owner `git`) fast-forwards the base
 * branch to the run's branch. A refusal fails that phase with git's reason and is returned as
 * `merged: false`; the run's own verdict is not changed. Never rejects; null when there is nothing
 * to merge (no `--merge`, or no branch).
 */
export async function mergeRunBranch(run: Run, workspace: RunWorkspace): Promise<FastForwardResult | null> {
  const { mergeInto, branch } = workspace;
  if (mergeInto === null || branch === null) return null;
  // Written inside the phase body; a holder so the type survives the callback.
  const outcome: { result: FastForwardResult | null } = { result: null };
  try {
    await run.code(
      "merge",
      { owner: "git", description: `Fast-forward ${mergeInto} to ${branch}` },
      async (phase) => {
        const result = await fastForward({ checkout: workspace.checkout, base: mergeInto, branch });
        outcome.result = result;
        phase.log(result.reason, {
          merged: result.merged,
          method: result.method,
          base: mergeInto,
          branch,
          from: result.from,
          to: result.to,
        });
        if (!result.merged) throw new SssfError("git_failed", `merge refused: ${result.reason}`);
      },
    );
  } catch (error) {
    // The phase already traced the refusal; an interrupt before the phase started lands here too.
    outcome.result ??= {
      merged: false,
      method: "none",
      from: null,
      to: null,
      reason: (error as Error).message,
    };
  }
  return outcome.result;
}

/**
 * The end of a run with `--merge`: the merge phase when the run was accepted (its success said on the
 * terminal; a refusal shows as the failed phase), a traced note when it was not. Null when there was
 * nothing to merge. Never rejects.
 */
export async function mergeIfAccepted(
  run: Run,
  workspace: RunWorkspace,
  accepted: boolean,
  { trace, reporter }: WorkspaceVoice,
): Promise<FastForwardResult | null> {
  if (workspace.mergeInto === null) return null;
  if (!accepted) {
    const note = `not merged into ${workspace.mergeInto}: the run was not accepted`;
    reporter.log(note);
    trace.event({
      type: "log",
      name: note,
      phaseId: null,
      payload: { base: workspace.mergeInto, shown: [note] },
    });
    return null;
  }
  const merge = await mergeRunBranch(run, workspace);
  if (merge?.merged) {
    const line = `merged: ${merge.reason}`;
    reporter.log(line);
    trace.event({
      type: "log",
      name: line,
      phaseId: null,
      payload: { base: workspace.mergeInto, shown: [line] },
    });
  }
  return merge;
}
